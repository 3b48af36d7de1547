import { oneAccount } from '../../domain/upstream';
import { Decimal } from 'decimal.js';
import type { InvoiceService } from '../../domain/invoices';
import { ProcessingClient } from '../../processing/client';
import { invoiceCallbackBody, postCallback, signedHeaders } from '../support/callbacks';
import { clearFaults, expectCleanError, injectFault } from '../support/faults';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { storedRecord } from '../support/table';

// Races and lost answers found in review: each must end with one upstream effect and a truthful record.
let harness: Harness;
let output: CapturedOutput;
let invoices: InvoiceService;

beforeAll(async () => {
  output = captureOutput();
  harness = await startHarness({ env: { PROCESSING_TIMEOUT_MS: '500' } });
  const [{ InvoiceService }, { invoiceStore }, { processing }, { claimTiming }] = await Promise.all([
    import('../../domain/invoices'),
    import('../../runtime/stores'),
    import('../../runtime/processing'),
    import('../../runtime/timing'),
  ]);
  invoices = new InvoiceService(invoiceStore, oneAccount(processing), claimTiming);
});
afterAll(async () => {
  await harness.close();
  output.restore();
});
afterEach(() => clearFaults(harness));

const sandboxInvoice = (foreignId: string) =>
  harness.control('GET', `/invoices/${encodeURIComponent(foreignId)}`);

/** An invoice someone else made at the service under the order's foreign_id (a signed call, not through us). */
async function createElsewhere(foreignId: string): Promise<void> {
  const { url, apiKey, secretKey } = harness.stack.sandbox!;
  const direct = new ProcessingClient({
    baseUrl: url,
    keys: { get: async () => ({ apiKey, secretKey }), refresh: async () => ({ apiKey, secretKey }) },
  });
  const body = checkoutBody(foreignId);
  await direct.createInvoice({
    foreign_id: foreignId,
    timer: true,
    title: body.title,
    currency: body.currency,
    amount: body.amount,
    url_success: body.url_success,
    url_failed: body.url_failed,
    email_user: body.email,
  });
  await direct.close();
}

test('the sweep never cancels an invoice that a retry created after it read the record', async () => {
  const foreignId = 'race-sweep-retry';
  await injectFault(harness, '/v2/invoices/create', '5xx');
  expect(
    (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody(foreignId) })).status,
  ).toBe(502);
  const { invoiceStore } = await import('../../runtime/stores');
  const staleCopy = (await invoiceStore.get(foreignId))!;
  expect(staleCopy.phase).toBe('unknown');

  const retried = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId),
  });
  expect(retried.status).toBe(201);
  await invoices.abandon(staleCopy);

  expect((await sandboxInvoice(foreignId)).body.status).toBe('pending');
  expect(await storedRecord(harness.stack, 'INVOICE', foreignId)).toMatchObject({
    phase: 'sent',
    status: 'pending',
  });
});

test('a foreign_id the service already holds from elsewhere is a conflict, and that invoice is left alone', async () => {
  const foreignId = 'taken-elsewhere';
  await createElsewhere(foreignId);
  const body = checkoutBody(foreignId);

  const answer = await harness.api('POST', '/checkout', { token: 'storefront', body });
  expectCleanError(answer, [409], ['duplicate_foreign_id']);
  expect((await sandboxInvoice(foreignId)).body.status).toBe('pending');
  expect((await sandboxInvoice(`${foreignId}~2`)).status).toBe(404);
});

test('a create the service surely never took is left unsent, not unknown: a retry does not cancel the invoice someone else holds', async () => {
  const foreignId = 'taken-elsewhere-after-403';
  await createElsewhere(foreignId);
  const body = checkoutBody(foreignId);
  // The service refuses our keys, and again after a refresh: it did nothing with the create.
  const fault = { path: '/v2/invoices/create', kind: '403', times: 2 };
  expect((await harness.control('POST', '/faults', fault)).status).toBe(201);

  const refused = await harness.api('POST', '/checkout', { token: 'storefront', body });

  expect(refused.status).toBeGreaterThanOrEqual(500);
  expect(await storedRecord(harness.stack, 'INVOICE', foreignId)).toMatchObject({ phase: 'unsent' });
  await clearFaults(harness);
  const retried = await harness.api('POST', '/checkout', { token: 'storefront', body });
  expectCleanError(retried, [409], ['duplicate_foreign_id']);
  expect((await sandboxInvoice(foreignId)).body.status).toBe('pending');
  expect((await sandboxInvoice(`${foreignId}~2`)).status).toBe(404);
});

test('a withdrawal whose answer and lookups were lost is found, never sent twice, never called rejected', async () => {
  const foreignId = 'refund-lost-twice';
  const body = refundBody(foreignId);
  const balance = async () =>
    new Decimal(
      (await harness.control('GET', '/balances')).body.data.find(
        (e: { currency: string }) => e.currency === 'EUR',
      ).balance,
    );
  const before = await balance();
  await injectFault(harness, '/v2/crypto/withdrawal_instant_exchange', 'reset_after_commit');
  await injectFault(harness, '/v2/transactions/info', '5xx', 100);

  expectCleanError(
    await harness.api('POST', '/refunds', { token: 'admin', body }),
    [502, 504],
    ['processor_error', 'processor_timeout'],
  );
  const retried = await harness.api('POST', '/refunds', { token: 'admin', body });
  expectCleanError(retried, [502, 504], ['processor_error', 'processor_timeout']);
  expect(await storedRecord(harness.stack, 'REFUND', foreignId)).toMatchObject({ phase: 'unknown' });

  await clearFaults(harness);
  const settled = await harness.api('POST', '/refunds', { token: 'admin', body });
  expect([200, 201]).toContain(settled.status);
  expect(settled.body.transaction_id).toEqual(expect.any(Number));
  expect(await harness.upstreamRequests('/v2/crypto/withdrawal_instant_exchange')).toHaveLength(1);
  expect(before.minus(await balance()).toFixed(8)).toBe('10.00000000');
});

test('a refused cancel of an invoice paid upstream records the payment, not a cancellation', async () => {
  const foreignId = 'cancel-after-paid';
  await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody(foreignId) });
  await harness.control('POST', '/callbacks', { url: 'http://127.0.0.1:9/callbacks', retry_ms: [] });
  try {
    await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' });
    const answer = await harness.api('POST', `/invoices/${foreignId}/cancel`, { token: 'admin' });
    expectCleanError(answer, [409], ['invoice_paid']);
    const polled = await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });
    expect(polled.body).toMatchObject({ status: 'paid', final: true });
  } finally {
    await harness.control('POST', '/callbacks', { url: `${harness.stack.url}/callbacks` });
  }
});

test('callback amounts are kept exact, written with at least 8 fractional digits', async () => {
  const foreignId = 'partial-amounts';
  await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId, { type: 'good_until_expired' }),
  });
  const body = invoiceCallbackBody(foreignId, 'pending', {
    currency_sent: { currency: 'BTC', amount: 0.0002, remaining_amount: 0.000259 },
  });
  expect((await postCallback(harness, body, signedHeaders(harness, body))).status).toBe(200);
  const polled = await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });
  expect(polled.body).toMatchObject({
    pay_currency: 'BTC',
    paid_amount: '0.00020000',
    owed_amount: '0.00025900',
  });
});

test('a body the lossless reader refuses, or one nested very deeply, is a 400', async () => {
  const duplicate = '{"foreign_id":"dup-keys","amount":1,"amount":2}';
  expect((await harness.api('POST', '/checkout', { token: 'storefront', body: duplicate })).status).toBe(400);
  const deep = `${'['.repeat(5000)}1${']'.repeat(5000)}`;
  expect((await harness.api('POST', '/checkout', { token: 'storefront', body: deep })).status).toBe(400);
});
