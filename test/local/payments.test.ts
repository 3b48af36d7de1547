// Proof of payment: the deposits the sandbox reports reach the invoice view, its webhooks and the CSV export, each
// with its transaction id and a link to it on a block explorer.
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { Decimal } from '../../domain/decimal';
import { newWebhookSecret } from '../../webhooks/signing';
import { checkoutMade, startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

/** Generous for a loaded machine; each wait ends as soon as the callbacks have arrived. */
const CALLBACKS_MS = 30_000;
const LTC_EXPLORER = 'https://ltc.explorer.test/tx/{txid}?from=plugin';
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const secret = newWebhookSecret();
let harness: Harness;
let receiver: WebhookReceiver;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // the functions log each call and delivery; keep the run quiet
  receiver = await startWebhookReceiver(secret);
  harness = await startHarness({
    webhooks: { url: receiver.url, secret, intervalMs: 50 },
    // The stage's setting over the defaults: LTC's link is the shop's own, BTC keeps the default.
    env: { EXPLORER_URLS: JSON.stringify({ LTC: LTC_EXPLORER }) },
  });
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
  output.restore();
});

const sandbox = async (foreignId: string, action: string, body: object = {}) => {
  const answer = await harness.control('POST', `/invoices/${foreignId}/${action}`, body);
  expect({ action, status: answer.status, body: answer.status === 200 ? 'ok' : answer.body }).toEqual({
    action,
    status: 200,
    body: 'ok',
  });
  return answer.body;
};

const poll = (foreignId: string) => harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });

/** Polls until the view satisfies `done`: the callbacks have arrived. */
const viewWhen = async (foreignId: string, done: (view: any) => boolean) =>
  (
    await waitFor(
      () => poll(foreignId),
      ({ body }: Answer) => done(body),
      CALLBACKS_MS,
    )
  ).body;

/** The sandbox's deposits to the invoice (its control view keeps each transfer's txid). */
const sandboxTxids = async (foreignId: string): Promise<string[]> => {
  const { body } = await harness.control('GET', `/invoices/${foreignId}`);
  return (body.deposits as Array<{ txid: string }>).map((deposit) => deposit.txid);
};

test('a paid order: its view, its webhook and its CSV row show the transaction and its explorer link', async () => {
  const created = await checkoutMade(harness, 'proof-1', { sender_currency: 'BTC' });
  await sandbox('proof-1', 'pay', { kind: 'full' });
  const view = await viewWhen('proof-1', (body) => body.status === 'paid');

  expect(view.payments).toHaveLength(1);
  const [payment] = view.payments;
  expect(payment).toEqual({
    txid: expect.stringMatching(/^[0-9a-f]{64}$/),
    amount: view.paid_amount,
    currency: 'BTC',
    confirmations: expect.any(Number),
    address: view.pay_address,
    explorer_url: `https://mempool.space/tx/${payment.txid}`,
    seen_at: expect.stringMatching(ISO_MS),
  });
  expect(payment.confirmations).toBeGreaterThan(0);
  expect(await sandboxTxids('proof-1')).toEqual([payment.txid]);

  const paid = await waitFor(
    async () =>
      receiver.received.filter((event) => {
        const body = JSON.parse(event.body);
        return body.data?.foreign_id === 'proof-1' && body.type === 'invoice.paid';
      }),
    (found) => found.length > 0,
    CALLBACKS_MS,
  );
  expect(JSON.parse(paid[0].body).data.payments).toEqual(view.payments);

  const csv = await harness.api('GET', '/exports/invoices.csv', { token: 'admin' });
  expect(csv.status).toBe(200);
  const [header, ...rows] = (csv.body as string).trim().split('\r\n');
  const column = header.split(',').indexOf('txids');
  expect(column).toBeGreaterThan(0);
  const row = rows.find((line) => line.startsWith('proof-1,'))!;
  expect(row.split(',')[column]).toBe(payment.txid);

  // The customer's view has it too, for the widget's final screen.
  const customer = await harness.api('GET', '/public/invoices/proof-1', {
    headers: { 'x-client-secret': created.client_secret },
  });
  expect(customer.status).toBe(200);
  expect(customer.body.payments).toEqual(view.payments);
});

test('instalments: three deposits listed in order, each with its confirmations as they grow', async () => {
  await checkoutMade(harness, 'proof-parts', {
    amount: '30',
    currency: 'EUR',
    sender_currency: 'LTC',
    type: 'good_until_expired',
  });
  const due = (await poll('proof-parts')).body.pay_amount as string;
  // Two parts of a third of the amount due each, sent while the invoice stays open; the third pays the rest.
  const part = new Decimal(due).div(3).toDecimalPlaces(8, Decimal.ROUND_DOWN).toFixed(8);

  await sandbox('proof-parts', 'pay', { kind: 'partial', amount: part });
  const one = await viewWhen('proof-parts', (body) => body.payments.length === 1);
  expect(one.payments[0]).toMatchObject({ currency: 'LTC', amount: part, confirmations: 0 });

  await sandbox('proof-parts', 'confirmations', { confirmations: 2 });
  const confirmed = await viewWhen('proof-parts', (body) => body.payments[0].confirmations === 2);
  expect(confirmed.payments[0].seen_at).toBe(one.payments[0].seen_at);

  await sandbox('proof-parts', 'pay', { kind: 'partial', amount: part });
  const two = await viewWhen('proof-parts', (body) => body.payments.length === 2);
  expect(two.payments.map((payment: any) => payment.confirmations)).toEqual([2, 0]);

  await sandbox('proof-parts', 'confirmations', { confirmations: 4 });
  await viewWhen('proof-parts', (body) => body.payments.every((payment: any) => payment.confirmations === 4));

  await sandbox('proof-parts', 'pay', { kind: 'full' });
  const paid = await viewWhen('proof-parts', (body) => body.status === 'paid' && body.payments.length === 3);

  const txids = await sandboxTxids('proof-parts');
  expect(new Set(txids).size).toBe(3);
  expect(paid.payments.map((payment: any) => payment.txid)).toEqual(txids);
  expect(paid.payments.map((payment: any) => payment.explorer_url)).toEqual(
    txids.map((txid) => `https://ltc.explorer.test/tx/${txid}?from=plugin`),
  );
  // First seen first; each deposit's confirmations grew to the sandbox's confirmed count, none went back.
  const seen = paid.payments.map((payment: any) => Date.parse(payment.seen_at));
  expect([...seen].sort((a, b) => a - b)).toEqual(seen);
  for (const payment of paid.payments) expect(payment.confirmations).toBeGreaterThanOrEqual(4);
  expect(paid.payments.slice(0, 2).map((payment: any) => payment.amount)).toEqual([part, part]);
});
