// A cancel is known by what we asked, not by the service's words (issue 40): against a service whose cancel text
// is not the sandbox's, a cancel whose answer was lost still ends `cancelled`, is announced as such, and late money
// on it reads `paid_late`; and a view never reads `failed` for our own cancel (issue 41).
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import type { InvoiceRecord } from '../../domain/model';
import { isOpen } from '../../domain/status';
import { newWebhookSecret } from '../../webhooks/signing';
import { clearFaults, expectCleanError, injectFault } from '../support/faults';
import { checkoutMade, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

const SANDBOX_WORDS = 'Invoice cancelled by merchant.';
/** Words of a service that are neither the sandbox's nor the reference service's. */
const OTHER_WORDS = 'Closed at the merchant’s request.';
/** Generous for a loaded machine; each wait ends as soon as what it waits for has happened. */
const WAIT_MS = 30_000;
const ADDRESS = 'bc1qrefundaddress0000000000000000000000';

const secret = newWebhookSecret();
let harness: Harness;
let receiver: WebhookReceiver;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // the lost answers log warnings; keep the run quiet
  receiver = await startWebhookReceiver(secret);
  harness = await startHarness({ webhooks: { url: receiver.url, secret, intervalMs: 50 } });
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
  output.restore();
});
afterEach(async () => {
  await clearFaults(harness);
  await harness.control('POST', '/features', { cancel_error: SANDBOX_WORDS, invoice_lookups: true });
});

const view = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
const cancel = (foreignId: string) =>
  harness.api('POST', `/invoices/${foreignId}/cancel`, { token: 'admin' });
const eventTypes = (foreignId: string) =>
  receiver.received
    .filter((event) => JSON.parse(event.body).data.foreign_id === foreignId)
    .map((event) => event.type);

test.each([
  ['the sandbox', SANDBOX_WORDS],
  ['the reference service', 'Cancelled by merchant.'],
  ['another service', OTHER_WORDS],
])(
  "a lost-answer cancel, in %s's words: reads cancelled, sends invoice.cancelled, and late money reads paid_late",
  async (_service, words) => {
    const foreignId = `asked-${words.length}`;
    await harness.control('POST', '/features', { cancel_error: words });
    await checkoutMade(harness, foreignId, { timer: true });
    // The cancel goes through with its answer lost, and the lookup after it cannot find the invoice.
    await harness.control('POST', '/features', { invoice_lookups: false });
    await injectFault(harness, `/v2/invoices/${foreignId}/cancel/`, 'reset_after_commit');

    const lost = await cancel(foreignId);
    expectCleanError(lost, [504], ['processor_timeout']);
    expect((await harness.control('GET', `/invoices/${foreignId}`)).body).toMatchObject({
      status: 'failed',
      error: words,
    });

    // The service's callback tells the rest.
    const cancelled = await waitFor(
      () => view(foreignId),
      (body) => body.final === true,
      WAIT_MS,
    );
    expect(cancelled).toMatchObject({ status: 'cancelled', exception: null, failure_message: null });
    expect(isOpen((await storedRecord(harness.stack, 'INVOICE', foreignId)) as InvoiceRecord)).toBe(true);
    const announced = await waitFor(
      async () => eventTypes(foreignId),
      (types) => types.includes('invoice.cancelled'),
      WAIT_MS,
    );
    expect(announced).not.toContain('invoice.failed');
    // A cancel of a cancelled invoice is refused, as after any cancel.
    expectCleanError(await cancel(foreignId), [409], ['invalid_invoice_state']);

    const paid = (await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' })).body;
    const late = await waitFor(
      () => view(foreignId),
      (body) => body.net_amount === paid.credited_amount,
      WAIT_MS,
    );
    expect(late).toMatchObject({
      status: 'cancelled',
      exception: 'paid_late',
      refundable: { amount: paid.credited_amount, currency: 'EUR' },
    });
    const refund = await harness.api('POST', `/invoices/${foreignId}/refunds`, {
      token: 'admin',
      body: { foreign_id: `${foreignId}-r`, address: ADDRESS },
    });
    expect(refund.status).toBe(201);
    const types = await waitFor(
      async () => eventTypes(foreignId),
      (found) => found.includes('invoice.exception'),
      WAIT_MS,
    );
    expect(types).not.toContain('invoice.failed');
  },
);

test("a view never reads failed for our own cancel whose callback comes before the cancel's answer", async () => {
  const foreignId = 'asked-callback-first';
  await harness.control('POST', '/features', { cancel_error: OTHER_WORDS });
  await checkoutMade(harness, foreignId, { timer: true });
  // The service does the cancel and sends its callback at once, and answers a moment later.
  await harness.control('POST', '/faults', {
    path: `/v2/invoices/${foreignId}/cancel/`,
    kind: 'delay',
    delay_ms: 500,
    times: 1,
  });

  const seen: string[] = [];
  let answered = false;
  const cancelling = cancel(foreignId).finally(() => {
    answered = true;
  });
  while (!answered) seen.push((await view(foreignId)).status);
  const answer = await cancelling;

  expect(answer.status).toBe(200);
  expect(answer.body.status).toBe('cancelled');
  expect(seen).not.toContain('failed');
  expect(await view(foreignId)).toMatchObject({ status: 'cancelled', final: true });
  const types = await waitFor(
    async () => eventTypes(foreignId),
    (found) => found.includes('invoice.cancelled'),
    WAIT_MS,
  );
  expect(types).not.toContain('invoice.failed');
});
