// A claim link that expires: its own stack, whose links last two seconds (one stack per file: the handlers'
// settings are the process's).
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput();
  // Long enough to make the link under load, short enough to wait out.
  harness = await startHarness({ env: { CLAIM_LINK_DAYS: String(2 / 86_400) } });
}, 60_000);
afterAll(async () => {
  await harness.close();
  output.restore();
});

const ADDRESS = 'bc1qclaimaddress00000000000000000000000';
const admin = { token: 'admin' } as const;

test('an expired link takes no address, and the reconcile job releases its amount', async () => {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody('claim-expiry', { timer: true }),
  });
  expect(created.status).toBe(201);
  await harness.control('POST', '/invoices/claim-expiry/pay', { kind: 'full' });
  const paid = await waitFor(
    () => harness.api('GET', '/invoices/claim-expiry', { token: 'storefront' }),
    ({ body }) => body.status === 'paid' && body.net_amount !== null,
    30_000,
  );
  const made = await harness.api('POST', '/invoices/claim-expiry/refunds', {
    ...admin,
    body: { foreign_id: 'claim-expiry-r1' },
  });
  expect(made.body.status).toBe('awaiting_claim');
  const expiresAt = Date.parse(made.body.claim_expires_at);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now()) + 50));

  const [foreignId, token] = new URL(made.body.claim_url).hash.slice(1).split('/');
  const late = await harness.api('POST', `/public/refund-claims/${foreignId}`, {
    headers: { 'x-claim-token': token! },
    body: { address: ADDRESS },
  });
  expect([late.status, late.body.error.code]).toEqual([409, 'claim_closed']);

  await harness.stack.runJob('reconcile');
  const refund = await harness.api('GET', '/refunds/claim-expiry-r1', admin);
  expect(refund.body).toMatchObject({ status: 'claim_expired', final: true, claim_url: null });
  const view = await harness.api('GET', '/invoices/claim-expiry', { token: 'storefront' });
  expect(view.body.refundable.amount).toBe(paid.body.net_amount);
  expect(view.body.refunds.map((entry: { status: string }) => entry.status)).toEqual(['claim_expired']);
}, 60_000);
