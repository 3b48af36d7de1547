// Refunds of an order through the whole local stack: reserved on the order, so that however many arrive at once
// they never take more than the order netted. Races are asserted here only: dynalite serialises writes to one item.
import { Decimal } from 'decimal.js';
import { checkoutBody, paidOrder, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // refusals log warnings; keep the run quiet
  harness = await startHarness();
}, 60_000);
afterAll(async () => {
  await harness.close();
  output.restore();
});

const ADDRESS = 'bc1qrefundaddress0000000000000000000000';
const admin = { token: 'admin' } as const;

/** An order paid in full, nothing refunded yet. */
async function unrefundedOrder(foreignId: string, overrides: Record<string, unknown> = {}) {
  const paid = await paidOrder(harness, foreignId, overrides);
  expect(paid).toMatchObject({ status: 'paid', refunds: [], net_currency: 'EUR' });
  expect(paid.refundable).toEqual({ amount: paid.net_amount, currency: 'EUR' });
  return paid;
}

const refund = (order: string, body: Record<string, unknown>) =>
  harness.api('POST', `/invoices/${order}/refunds`, { ...admin, body: { address: ADDRESS, ...body } });

/**
 * The refund's answer once it is settled: a 409 `in_progress` or a 504 (cut off under load, outcome unknown) is
 * asked again with the same request, as a client would; the refund is idempotent by its foreign_id.
 */
async function settledRefund(order: string, body: Record<string, unknown>) {
  for (let attempt = 1; ; attempt++) {
    const answer = await refund(order, body);
    const unsettled = answer.status === 504 || answer.body?.error?.code === 'in_progress';
    if (!unsettled || attempt === 5) return answer;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

test('by default all that is left goes back, from the currency credited to the one the customer paid in', async () => {
  const order = await unrefundedOrder('oref-default');
  const sent = await refund('oref-default', { foreign_id: 'oref-default-r1' });
  expect(sent.status).toBe(201);
  expect(sent.body).toMatchObject({
    foreign_id: 'oref-default-r1',
    invoice_foreign_id: 'oref-default',
    status: 'processing',
    final: false,
    currency: 'BTC',
    debited_currency: 'EUR',
    debited_amount: order.net_amount,
  });
  expect(sent.body.amount).toMatch(/^\d+\.\d{8}$/);

  const again = await refund('oref-default', { foreign_id: 'oref-default-r1' });
  expect([again.status, again.body.transaction_id]).toEqual([200, sent.body.transaction_id]);

  const view = await harness.api('GET', '/invoices/oref-default', { token: 'storefront' });
  expect(view.body.refunds).toEqual([
    {
      foreign_id: 'oref-default-r1',
      debited_amount: order.net_amount,
      debited_currency: 'EUR',
      currency: 'BTC',
      status: 'pending',
      created_at: sent.body.created_at,
    },
  ]);
  expect(view.body.refundable).toEqual({ amount: '0.00000000', currency: 'EUR' });

  const more = await refund('oref-default', { foreign_id: 'oref-default-r2', debited_amount: '0.01' });
  expect(more.status).toBe(409);
  expect(more.body.error).toMatchObject({
    code: 'refund_exceeds_refundable',
    refundable: { amount: '0.00000000', currency: 'EUR' },
  });
  // A refusal leaves nothing behind: the foreign_id is free, and no withdrawal was asked for.
  expect((await harness.api('GET', '/refunds/oref-default-r2', admin)).status).toBe(404);
});

test('an amount over what is left is a 409 naming it; within it, the refund goes out', async () => {
  const order = await unrefundedOrder('oref-bound');
  const net = new Decimal(order.net_amount);
  const over = await refund('oref-bound', {
    foreign_id: 'oref-bound-r1',
    debited_amount: net.plus('0.00000001').toFixed(8),
  });
  expect(over.status).toBe(409);
  expect(over.body.error).toEqual({
    code: 'refund_exceeds_refundable',
    message: expect.stringContaining(`${order.net_amount} EUR`),
    refundable: { amount: order.net_amount, currency: 'EUR' },
  });
  const within = await refund('oref-bound', {
    foreign_id: 'oref-bound-r1',
    debited_amount: '5',
    currency: 'ETH',
  });
  expect(within.status).toBe(201);
  expect(within.body).toMatchObject({ debited_amount: '5.00000000', currency: 'ETH' });
  const view = await harness.api('GET', '/invoices/oref-bound', { token: 'storefront' });
  expect(view.body.refundable).toEqual({ amount: net.minus(5).toFixed(8), currency: 'EUR' });
});

test('an order that is not paid cannot be refunded; nor can one that does not exist', async () => {
  await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('oref-unpaid') });
  const unpaid = await refund('oref-unpaid', { foreign_id: 'oref-unpaid-r1' });
  expect([unpaid.status, unpaid.body.error.code]).toEqual([409, 'invoice_not_refundable']);
  const view = await harness.api('GET', '/invoices/oref-unpaid', { token: 'storefront' });
  expect([view.body.refundable, view.body.refunds]).toEqual([null, []]);
  const missing = await refund('oref-none', { foreign_id: 'oref-none-r1' });
  expect(missing.status).toBe(404);
  expect((await harness.api('GET', '/refunds/oref-unpaid-r1', admin)).status).toBe(404);
});

test('the storefront token may not refund', async () => {
  const answer = await harness.api('POST', '/invoices/oref-default/refunds', {
    token: 'storefront',
    body: { foreign_id: 'oref-shop', address: ADDRESS },
  });
  expect(answer.status).toBe(403);
});

test('a refund that fails at the service no longer counts against the order', async () => {
  const order = await unrefundedOrder('oref-fail');
  const sent = await refund('oref-fail', { foreign_id: 'oref-fail-r1', debited_amount: '3' });
  expect(sent.status).toBe(201);
  expect(
    (await harness.control('POST', '/withdrawals/oref-fail-r1/complete', { status: 'failed' })).status,
  ).toBe(200);
  const view = await waitFor(
    () => harness.api('GET', '/invoices/oref-fail', { token: 'storefront' }),
    ({ body }) => body.refunds[0]?.status === 'failed',
    30_000,
  );
  expect(view.body.refunds[0]).toMatchObject({ foreign_id: 'oref-fail-r1', status: 'failed' });
  expect(view.body.refundable).toEqual({ amount: order.net_amount, currency: 'EUR' });
  // The order's reservation ends first, then the refund's record (domain/refunds.ts): a moment apart.
  const failed = await waitFor(
    () => harness.api('GET', '/refunds/oref-fail-r1', admin),
    ({ body }) => body.final === true,
    30_000,
  );
  expect(failed.body).toMatchObject({ status: 'failed', final: true, invoice_foreign_id: 'oref-fail' });
});

test('refunds are listed oldest first, a refund retried after the service refused it too', async () => {
  await unrefundedOrder('oref-order');
  const { body: balances } = await harness.control('GET', '/balances');
  const eur = balances.data.find((entry: { currency: string }) => entry.currency === 'EUR').balance;
  // The service refuses the first refund (insufficient funds); it is asked for again once the balance is back.
  await harness.control('POST', '/balances', { currency: 'EUR', balance: '0' });
  const refused = await refund('oref-order', { foreign_id: 'oref-order-early', debited_amount: '1' });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  await harness.control('POST', '/balances', { currency: 'EUR', balance: eur });
  expect((await refund('oref-order', { foreign_id: 'oref-order-late', debited_amount: '1' })).status).toBe(
    201,
  );
  expect((await refund('oref-order', { foreign_id: 'oref-order-early', debited_amount: '1' })).status).toBe(
    201,
  );

  const { body } = await harness.api('GET', '/invoices/oref-order', { token: 'storefront' });
  const times = body.refunds.map((entry: { created_at: string }) => entry.created_at);
  expect(times).toEqual([...times].sort());
  expect(body.refunds.map((entry: { foreign_id: string }) => entry.foreign_id)).toEqual([
    'oref-order-early',
    'oref-order-early',
    'oref-order-late',
  ]);
});

test('20 refunds of one order at once never take more than it netted; the rest get the 409 naming what is left', async () => {
  const order = await unrefundedOrder('oref-race');
  const net = new Decimal(order.net_amount);
  // Each asks for a quarter of the net: at most four fit, whichever order the writes land in.
  const quarter = net.div(4).toDecimalPlaces(8, Decimal.ROUND_DOWN);
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      settledRefund('oref-race', { foreign_id: `oref-race-r${i}`, debited_amount: quarter.toFixed(8) }),
    ),
  );
  // 200: a retry found its refund sent by the attempt that answered 504.
  const accepted = answers.filter((answer) => answer.status === 201 || answer.status === 200);
  const refused = answers.filter((answer) => answer.status === 409);
  // Shown in full when the run fails, so that a timeout under load is told apart from a broken bound.
  expect(answers.filter((answer) => !accepted.includes(answer) && !refused.includes(answer))).toEqual([]);
  expect(accepted).toHaveLength(4);
  const sum = accepted.reduce((total, answer) => total.plus(answer.body.debited_amount), new Decimal(0));
  expect(sum.lte(net)).toBe(true);
  const left = net.minus(sum).toFixed(8);
  for (const answer of refused) {
    expect(answer.body.error).toMatchObject({
      code: 'refund_exceeds_refundable',
      refundable: { amount: left, currency: 'EUR' },
    });
  }
  const view = await harness.api('GET', '/invoices/oref-race', { token: 'storefront' });
  expect(view.body.refunds).toHaveLength(4);
  expect(view.body.refundable).toEqual({ amount: left, currency: 'EUR' });
  // What left the balance at the service is what the order's view counts.
  const sentUpstream = await harness.upstreamRequests('/v2/crypto/withdrawal_instant_exchange');
  const raceSends = sentUpstream.filter((request) => request.body.includes('oref-race-r'));
  expect(raceSends.filter((request) => request.status < 300)).toHaveLength(4);
}, 120_000);
