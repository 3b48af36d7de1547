import { Decimal } from 'decimal.js';
import { sign } from '../../processing/signing';
import { clearFaults, injectFault } from '../support/faults';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable, storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

const STALE_SECONDS = 1;
const GRACE_SECONDS = 1;

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // the injected failures log errors; keep the run quiet
  harness = await startHarness({
    env: {
      PROCESSING_TIMEOUT_MS: '500',
      RECONCILE_STALE_SECONDS: String(STALE_SECONDS),
      RECONCILE_EXPIRY_GRACE_SECONDS: String(GRACE_SECONDS),
    },
  });
  // Every callback is lost: the sandbox posts to a closed port and does not retry.
  await harness.control('POST', '/callbacks', { url: 'http://127.0.0.1:9/callbacks', retry_ms: [] });
});
afterAll(async () => {
  await harness.close();
  output.restore();
});
afterEach(() => clearFaults(harness));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function eurBalance(): Promise<string> {
  const { body } = await harness.control('GET', '/balances');
  return body.data.find((entry: { currency: string }) => entry.currency === 'EUR').balance;
}

/** Waits until the sandbox has tried, and failed, to deliver this many callbacks. */
async function lostCallbacks(count: number) {
  const deliveries = await waitFor(
    async () =>
      (await harness.control('GET', '/callbacks')).body.deliveries as Array<{ status: number | null }>,
    (list) => list.length >= count,
  );
  expect(deliveries.slice(0, count).map((delivery) => delivery.status)).toEqual(Array(count).fill(null));
}
let callbacksLost = 0;

test.each(['confirmed', 'failed'] as const)(
  'a refund %s upstream whose callback was lost is closed out by the sweep',
  async (outcome) => {
    const foreignId = `reconcile-refund-${outcome}`;
    const before = await eurBalance();
    const created = await harness.api('POST', '/refunds', { token: 'admin', body: refundBody(foreignId) });
    expect(created.status).toBe(201);
    const completed = await harness.control('POST', `/withdrawals/${foreignId}/complete`, {
      status: outcome,
    });
    expect(completed.status).toBe(200);
    await lostCallbacks(++callbacksLost);
    expect(await storedRecord(harness.stack, 'REFUND', foreignId)).toMatchObject({ status: 'processing' });

    const report = (await harness.stack.runJob('reconcile')) as { refundsChecked: number };

    expect(report.refundsChecked).toBeGreaterThanOrEqual(1);
    expect(await storedRecord(harness.stack, 'REFUND', foreignId)).toMatchObject({ status: outcome });
    const view = await harness.api('GET', `/refunds/${foreignId}`, { token: 'admin' });
    expect(view.body).toMatchObject({ status: outcome, final: true });
    expect(view.body.history.at(-1)).toMatchObject({ status: outcome, source: 'reconcile' });
    const debited = new Decimal(before).minus(await eurBalance()).toString();
    expect(debited).toBe(outcome === 'confirmed' ? '10' : '0');
  },
);

test('a refund whose foreign_id the service holds for a withdrawal we did not make is never taken for ours', async () => {
  const foreignId = 'ext-1';
  // Someone else's withdrawal, made with a signed call straight to the service.
  const { url, apiKey, secretKey } = harness.stack.sandbox!;
  const theirs = JSON.stringify({
    foreign_id: foreignId,
    sender_currency: 'EUR',
    received_currency: 'BTC',
    sender_amount: '5',
    address: 'bc1qsomeoneelse000000000000000000000000',
  });
  const made = await fetch(`${url}/v2/crypto/withdrawal_instant_exchange`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-processing-key': apiKey,
      'x-processing-signature': sign(secretKey, theirs),
    },
    body: theirs,
  });
  expect(made.status).toBe(201);
  const before = await eurBalance();

  const refused = await harness.api('POST', '/refunds', {
    token: 'admin',
    body: refundBody(foreignId, { debited_amount: '7' }),
  });
  expect(refused.status).toBe(409);
  await sleep(STALE_SECONDS * 1000 + 100);
  await harness.stack.runJob('reconcile');

  const view = await harness.api('GET', `/refunds/${foreignId}`, { token: 'admin' });
  expect(view.body).toMatchObject({ status: 'rejected', transaction_id: null, amount: null });
  expect(new Decimal(view.body.debited_amount).eq(7)).toBe(true);
  expect(view.body.history).toEqual([]);
  // Refused for good: it has left the sweep's open items, and nothing more was sent or debited.
  const item = (await scanTable(harness.stack)).find((entry) => entry.pk?.S === `REFUND#${foreignId}`);
  expect(item?.gsi1pk).toBeUndefined();
  expect(await eurBalance()).toBe(before);
});

test('a stale checkout whose outcome stayed unknown is abandoned and its orphan cancelled upstream', async () => {
  const foreignId = 'reconcile-stale';
  const body = checkoutBody(foreignId);
  await injectFault(harness, '/v2/invoices/create', 'reset_after_commit');
  const lost = await harness.api('POST', '/checkout', { token: 'storefront', body });
  expect(lost.status).toBe(504);
  expect((await harness.control('GET', `/invoices/${foreignId}`)).body.status).toBe('pending');
  await clearFaults(harness);

  await sleep(STALE_SECONDS * 1000 + 100);
  const report = (await harness.stack.runJob('reconcile')) as { invoicesAbandoned: number };

  expect(report.invoicesAbandoned).toBeGreaterThanOrEqual(1);
  expect((await harness.control('GET', `/invoices/${foreignId}`)).body.status).toBe('failed');
  expect(await storedRecord(harness.stack, 'INVOICE', foreignId)).toMatchObject({ phase: 'abandoned' });
  // The store has not retried yet: the poll answers (it says `creating` until a retry starts attempt 2).
  const polled = await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });
  expect(polled.body).toMatchObject({
    foreign_id: foreignId,
    status: 'creating',
    final: false,
    payment_url: null,
  });

  // The store's retry still ends with one payable invoice, under the next upstream foreign_id.
  const retried = await harness.api('POST', '/checkout', { token: 'storefront', body });
  expect(retried.status).toBe(201);
  const replacement = await harness.control('GET', `/invoices/${foreignId}~2`);
  expect(replacement.body.status).toBe('pending');
  expect(retried.body).toMatchObject({ status: 'awaiting_payment', payment_url: replacement.body.url });
  expect((await harness.control('GET', `/invoices/${foreignId}`)).body.status).toBe('failed');
});

test('a stale checkout that never reached the service is abandoned without error', async () => {
  const foreignId = 'reconcile-never-sent';
  await injectFault(harness, '/v2/invoices/create', '5xx');
  expect(
    (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody(foreignId) })).status,
  ).toBe(502);
  await clearFaults(harness);

  await sleep(STALE_SECONDS * 1000 + 100);
  await harness.stack.runJob('reconcile');

  expect(await storedRecord(harness.stack, 'INVOICE', foreignId)).toMatchObject({ phase: 'abandoned' });
  expect((await harness.control('GET', `/invoices/${foreignId}`)).status).toBe(404);
});

// The sweep first looks an open invoice up a grace after checkout, with a timer or without, not after its expiry.
test.each([
  ['a timer-less invoice', { timer: false, sender_currency: undefined }],
  ['an invoice with a timer', {}],
])(
  '%s paid upstream whose callbacks were lost shows paid, with its amount, after the first sweep',
  async (kind, overrides) => {
    const foreignId = `reconcile-paid-${kind.split(' ').at(-1)}`;
    const created = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody(foreignId, overrides),
    });
    expect(created.status).toBe(201);
    const paid = await harness.control('POST', `/invoices/${foreignId}/pay`, {
      kind: 'full',
      currency: 'BTC',
    });
    expect(paid.body.status).toBe('confirmed');

    await sleep(GRACE_SECONDS * 1000 + 100);
    await harness.stack.runJob('reconcile');

    const polled = await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });
    expect(polled.body).toMatchObject({
      status: 'paid',
      final: true,
      pay_currency: 'BTC',
      paid_amount: paid.body.paid_amount,
    });
    expect(polled.body.history.at(-1)).toMatchObject({ service_status: 'confirmed', source: 'reconcile' });
  },
);
