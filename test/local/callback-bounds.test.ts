// Signed callbacks whose texts and lists pass every bound we keep of them: each is answered 2xx within the
// function's time and its news recorded, with the record's item small in UTF-8 bytes, as DynamoDB sizes it
// (issue 29). Texts are of 4-byte characters: dynalite counts them as 2 units, DynamoDB as 4 bytes.
import { API_FUNCTION_TIMEOUT_SECONDS } from '../../lib/routes';
import { CURRENCY_MAX_BYTES, MAX_FEE_CURRENCIES } from '../../processing/translate';
import { invoiceCallbackBody, postCallback, signedHeaders } from '../support/callbacks';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput();
  harness = await startHarness();
  await harness.control('POST', '/callbacks', { url: null });
});
afterAll(async () => {
  await harness?.close();
  output.restore();
});

/** 4 bytes in UTF-8, 2 units in UTF-16. */
const COIN = '\u{1FA99}';
/** A currency name of 20 KB in UTF-8. */
const HUGE_NAME = COIN.repeat(5_000);
/** Well under DynamoDB's 400 KB, with the record's outbox events (each a copy of the record) in it. */
const ITEM_BUDGET_BYTES = 64 * 1024;

async function order(foreignId: string) {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId),
  });
  expect(created.status).toBe(201);
  return created.body as { pay_amount: string };
}

/** The invoice item's UTF-8 size as DynamoDB counts it: names and string values in bytes. */
async function itemBytes(foreignId: string): Promise<number> {
  const item = (await scanTable(harness.stack)).find((entry) => entry.pk?.S === `INVOICE#${foreignId}`)!;
  return Object.entries(item).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value.S ?? value.N ?? ''),
    0,
  );
}

async function send(body: string) {
  const started = Date.now();
  const answer = await postCallback(harness, body, signedHeaders(harness, body));
  return { answer, ms: Date.now() - started };
}

test('a confirmed callback with 4,000 fee entries, a 20 KB currency name and long lists is recorded as paid', async () => {
  const foreignId = 'cb-bounds-lists';
  const { pay_amount: payAmount } = await order(foreignId);
  const fees = Array.from({ length: 4_000 }, (_, index) => ({
    type: `fee_${COIN.repeat(20)}_${index}`,
    // Summed per currency, 4,000 currencies of 160 bytes are past the item limit.
    currency: `${COIN.repeat(40)}${index}`,
    amount: 0.001,
  }));
  fees.push({ type: HUGE_NAME, currency: HUGE_NAME, amount: 0.5 });
  const body = invoiceCallbackBody(foreignId, 'confirmed', {
    crypto_address: { id: 1, currency: HUGE_NAME, address: COIN.repeat(5_000), tag: COIN.repeat(5_000) },
    currency_sent: { currency: 'BTC', amount: Number(payAmount) },
    transactions: Array.from({ length: 4_000 }, (_, index) => ({
      id: index,
      currency: HUGE_NAME.slice(0, 200),
      transaction_type: 'blockchain',
      type: 'deposit',
      address: COIN.repeat(20),
      tag: null,
      amount: 0.0000001,
      txid: `${COIN.repeat(20)}${index}`,
      confirmations: 6,
    })),
    fees,
  });

  const { answer, ms } = await send(body);

  expect(answer.status).toBe(200);
  expect(answer.body.outcome).toBe('applied');
  expect(ms).toBeLessThan(API_FUNCTION_TIMEOUT_SECONDS * 1000);
  const view = (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
  expect(view).toMatchObject({
    status: 'paid',
    paid_amount: payAmount,
    net_amount: '25.50000000',
    net_currency: 'EUR',
  });
  expect(view.fees).toHaveLength(MAX_FEE_CURRENCIES);
  for (const fee of view.fees)
    expect(Buffer.byteLength(fee.currency)).toBeLessThanOrEqual(CURRENCY_MAX_BYTES);
  expect(await itemBytes(foreignId)).toBeLessThan(ITEM_BUDGET_BYTES);
}, 120_000);

test('a 20 KB currency name in what was credited and paid is kept cut short, with the amounts', async () => {
  const foreignId = 'cb-bounds-name';
  await order(foreignId);
  const body = invoiceCallbackBody(foreignId, 'processing', {
    currency_sent: { currency: HUGE_NAME, amount: 0.00046 },
    currency_received: { currency: HUGE_NAME, amount: 25.5 },
    error: COIN.repeat(250_000),
  });

  const { answer } = await send(body);

  expect(answer.status).toBe(200);
  const view = (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
  expect(view).toMatchObject({ status: 'confirming', paid_amount: '0.00046000', net_amount: '25.50000000' });
  expect(view.net_currency).toMatch(new RegExp(`^(${COIN})+…$`, 'u'));
  expect(Buffer.byteLength(view.net_currency)).toBeLessThanOrEqual(CURRENCY_MAX_BYTES);
  expect(await itemBytes(foreignId)).toBeLessThan(ITEM_BUDGET_BYTES);
});

test('a foreign_id longer than any of ours names no order: 200 ignored, nothing written', async () => {
  const body = invoiceCallbackBody(COIN.repeat(5_000), 'confirmed');
  const { answer } = await send(body);
  expect(answer.status).toBe(200);
  expect(answer.body.outcome).toBe('ignored');
});
