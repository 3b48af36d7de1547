// The reconcile job moves on past records whose look fails: more of them than a batch never keep it from the
// others (issue 29). Each such record is pushed back in the queue and counted in a metric.
import { injectFault } from '../support/faults';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { storedRecord } from '../support/table';

const BATCH = 3;
const GRACE_SECONDS = 1;

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput();
  harness = await startHarness({
    env: {
      PROCESSING_TIMEOUT_MS: '500',
      RECONCILE_BATCH: String(BATCH),
      RECONCILE_EXPIRY_GRACE_SECONDS: String(GRACE_SECONDS),
    },
  });
  // Every callback is lost: only the reconcile job can learn that the orders were paid.
  await harness.control('POST', '/callbacks', { url: 'http://127.0.0.1:9/callbacks', retry_ms: [] });
});
afterAll(async () => {
  await harness?.close();
  output.restore();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An order paid upstream whose callbacks were lost; its invoice's id at the service. */
async function paidOrder(foreignId: string): Promise<number> {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId),
  });
  expect(created.status).toBe(201);
  expect((await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' })).status).toBe(200);
  return created.body.processor_invoice_id;
}

const status = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body.status;

/** The metric lines the job wrote: one count of failed looks per run that had any. */
const failureCounts = () =>
  output
    .text()
    .split('\n')
    .filter((line) => line.includes('"ReconcileLookFailures"'))
    .map((line) => JSON.parse(line).ReconcileLookFailures as number);

test('more records whose lookup always fails than a batch: the others are still reconciled, the failures counted', async () => {
  // Oldest first, so that the failing ones head the queue.
  const failing = ['look-fails-1', 'look-fails-2', 'look-fails-3', 'look-fails-4'];
  for (const foreignId of failing) {
    const invoiceId = await paidOrder(foreignId);
    await injectFault(harness, `/v2/transactions/info?id=${invoiceId}`, '5xx', 1_000);
  }
  await paidOrder('look-works-1');
  await sleep(GRACE_SECONDS * 1000 + 100);
  const before = failureCounts().length;

  // Each run takes a batch from the head of the queue; failed looks go behind the others.
  const first = (await harness.stack.runJob('reconcile')) as { failures: number; invoicesChecked: number };
  expect(first).toMatchObject({ invoicesChecked: BATCH, failures: BATCH });
  const second = (await harness.stack.runJob('reconcile')) as { failures: number; invoicesChecked: number };
  expect(second).toMatchObject({ invoicesChecked: 2, failures: 1 });

  expect(await status('look-works-1')).toBe('paid');
  for (const foreignId of failing) expect(await status(foreignId)).toBe('awaiting_payment');
  // Pushed back: looked at, and not due again before the others' next look.
  for (const foreignId of failing)
    expect((await storedRecord(harness.stack, 'INVOICE', foreignId))?.sweptAt).toEqual(expect.any(Number));
  expect(failureCounts().slice(before)).toEqual([BATCH, 1]);

  // A third run finds nothing due: no record heads the queue for ever.
  const third = (await harness.stack.runJob('reconcile')) as { failures: number; invoicesChecked: number };
  expect(third).toMatchObject({ invoicesChecked: 0, failures: 0 });
}, 120_000);
