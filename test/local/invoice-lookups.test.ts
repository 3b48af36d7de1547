// A service written from the spec alone finds deposits and withdrawals by id, never an invoice (issue 29, problem
// 7): the lookup's not-found is counted and never read as unpaid or expired, and the callbacks' deposits are asked.
import { checkoutMade, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

const GRACE_SECONDS = 1;

let harness: Harness;
let output: CapturedOutput;
let callbackUrl: string;
beforeAll(async () => {
  output = captureOutput(); // the not-found lookups log warnings; keep the run quiet
  harness = await startHarness({
    env: { RECONCILE_STALE_SECONDS: '1', RECONCILE_EXPIRY_GRACE_SECONDS: String(GRACE_SECONDS) },
  });
  callbackUrl = (await harness.control('POST', '/callbacks', {})).body.url;
  const switched = await harness.control('POST', '/features', { invoice_lookups: false });
  expect(switched.body.invoice_lookups).toBe(false);
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const view = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
const loseCallbacks = () =>
  harness.control('POST', '/callbacks', { url: 'http://127.0.0.1:9/callbacks', retry_ms: [] });
const notFoundCounts = () => output.text().split('"InvoiceLookupNotFound":1').length - 1;

const checkout = (foreignId: string, overrides?: Record<string, unknown>) =>
  checkoutMade(harness, foreignId, { timer: true, ...overrides });

/** The sandbox's answers to lookups by id since `from`, as [id, status]. */
async function lookups(from = 0): Promise<Array<[number, number]>> {
  const requests = await harness.upstreamRequests('/v2/transactions/info');
  return requests.slice(from).map((request) => [JSON.parse(request.body).id, request.status]);
}

test('an invoice the service cannot find is counted, and never read as expired or unpaid', async () => {
  await loseCallbacks();
  const created = await checkout('lookup-expired');
  expect((await harness.control('POST', '/invoices/lookup-expired/expire')).status).toBe(200);
  await sleep(GRACE_SECONDS * 1000 + 100);
  const before = (await lookups()).length;
  const counted = notFoundCounts();

  await harness.stack.runJob('reconcile');

  expect(await lookups(before)).toContainEqual([created.processor_invoice_id, 404]);
  expect(notFoundCounts()).toBeGreaterThan(counted);
  expect(await view('lookup-expired')).toMatchObject({ status: 'awaiting_payment', final: false });
});

test('the deposits the callbacks named are looked up instead; the money they show stays shown', async () => {
  await harness.control('POST', '/callbacks', { url: callbackUrl });
  const created = await checkout('lookup-deposits', { type: 'good_until_expired' });
  await harness.control('POST', '/invoices/lookup-deposits/pay', { kind: 'partial' });
  const partly = await waitFor(
    () => view('lookup-deposits'),
    (body) => body.exception === 'paid_partial',
    30_000,
  );
  // This order's callback that named the deposit. The sandbox logs a delivery once its answer is in, which may
  // be after the view changed, and another order's delivery may be logged after it.
  const named = async () =>
    ((await harness.control('GET', '/callbacks')).body.deliveries as Array<{ body: string }>)
      .map(
        (delivery) =>
          JSON.parse(delivery.body) as { foreign_id: string; transactions?: Array<{ id: number }> },
      )
      .filter((callback) => callback.foreign_id.split('~')[0] === 'lookup-deposits')
      .flatMap((callback) => callback.transactions ?? []);
  const transactions = await waitFor(named, (ids) => ids.length > 0, 30_000);
  await loseCallbacks();
  await harness.control('POST', '/invoices/lookup-deposits/expire');
  await sleep(GRACE_SECONDS * 1000 + 100);
  const before = (await lookups()).length;

  await harness.stack.runJob('reconcile');

  const asked = await lookups(before);
  expect(asked).toContainEqual([created.processor_invoice_id, 404]);
  expect(asked).toContainEqual([transactions[0].id, 200]);
  expect(await view('lookup-deposits')).toMatchObject({
    status: 'awaiting_payment',
    exception: 'paid_partial',
    paid_amount: partly.paid_amount,
    final: false,
  });
});

test('a cancel whose lookup cannot find the invoice is counted and goes ahead on what the record knows', async () => {
  await loseCallbacks();
  await checkout('lookup-cancel');
  const counted = notFoundCounts();

  const answer = await harness.api('POST', '/invoices/lookup-cancel/cancel', { token: 'admin' });

  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ status: 'cancelled' });
  expect(notFoundCounts()).toBeGreaterThan(counted);
  expect(await harness.upstreamRequests('/v2/invoices/lookup-cancel/cancel/')).toHaveLength(1);
});
