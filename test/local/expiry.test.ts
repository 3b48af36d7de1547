// The payment service's expiry, end to end: once a payment is seen it extends the invoice's timer (to 24 hours),
// and the views follow it; an expiry already shown is never shortened (issue 29).
import { nextSweepAt } from '../../domain/reconcile';
import { invoiceCallbackBody, postCallback, signedHeaders } from '../support/callbacks';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness?.close());

const DAY_SECONDS = 24 * 60 * 60;
const seconds = (iso: string) => Date.parse(iso) / 1000;

test('a payment seen extends expires_at and seconds_left in both views; an earlier expiry never shortens them', async () => {
  const foreignId = 'expiry-extended';
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId),
  });
  expect(created.status).toBe(201);
  const checkoutExpiry = seconds(created.body.expires_at);
  expect(created.body.seconds_left).toBeLessThanOrEqual(15 * 60);

  // The customer pays; the service sees it and holds it for confirmation.
  const paid = await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full', hold: true });
  expect(paid.status).toBe(200);
  const extended: number = paid.body.release_at;
  expect(extended - checkoutExpiry).toBeGreaterThan(DAY_SECONDS - 15 * 60 - 60);

  const view = await waitFor(
    async () => (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body,
    (body) => body.status === 'confirming',
  );
  expect(seconds(view.expires_at)).toBe(extended);
  expect(view.seconds_left).toBeGreaterThan(DAY_SECONDS - 120);
  const shown = await harness.api('GET', `/public/invoices/${foreignId}`, {
    headers: { 'x-client-secret': created.body.client_secret },
  });
  expect(shown.status).toBe(200);
  expect(seconds(shown.body.expires_at)).toBe(extended);
  expect(shown.body.seconds_left).toBeGreaterThan(DAY_SECONDS - 120);
  // The reconcile job looks at it once the extended expiry has had its grace, not at the checkout's.
  const record = (await storedRecord(harness.stack, 'INVOICE', foreignId))!;
  expect(record.invoice.releaseAt).toBe(extended);
  const timing = { staleAfterMs: 300_000, expiryGraceMs: 60_000 };
  const lateLook = nextSweepAt({ ...record, sweptAt: (extended - 600) * 1000 } as never, timing);
  expect(lateLook).toBe(extended * 1000 + 60_000);

  // News that names the checkout's expiry again (a late copy, a stale lookup) does not take the time back.
  const stale = invoiceCallbackBody(foreignId, 'processing', { expires_at: checkoutExpiry });
  expect((await postCallback(harness, stale, signedHeaders(harness, stale))).status).toBe(200);
  const after = (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
  expect(seconds(after.expires_at)).toBe(extended);
});

test('an invoice without a timer shows no expiry, whatever the news names', async () => {
  const foreignId = 'expiry-no-timer';
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId, { timer: false, sender_currency: undefined }),
  });
  expect(created.status).toBe(201);
  const body = invoiceCallbackBody(foreignId, 'processing', {
    expires_at: Math.floor(Date.now() / 1000) + 60,
  });
  expect((await postCallback(harness, body, signedHeaders(harness, body))).status).toBe(200);
  const view = (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
  expect(view).toMatchObject({ status: 'confirming', expires_at: null, seconds_left: null });
});
