// Refunds the payment service holds for an owner's approval, through the whole local stack: the sandbox holds a
// withdrawal over its currency's approval limit as `pending`; its control routes approve or decline it, as another
// owner would in the service's back office. Callbacks and the sweep each carry the refund to its end.
import { Decimal } from 'decimal.js';
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { paidOrder, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

const secret = newWebhookSecret();
let harness: Harness;
let receiver: WebhookReceiver;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // refusals log warnings; keep the run quiet
  receiver = await startWebhookReceiver(secret);
  harness = await startHarness({
    webhooks: { url: receiver.url, secret, intervalMs: 50 },
    env: { RECONCILE_STALE_SECONDS: '1', RECONCILE_EXPIRY_GRACE_SECONDS: '1' },
  });
  // Refunds of more than 10 EUR wait for approval.
  expect((await harness.control('POST', '/approval-limits', { currency: 'EUR', limit: '10' })).status).toBe(
    200,
  );
}, 60_000);
afterAll(async () => {
  await harness.close();
  await receiver.close();
  output.restore();
});

const ADDRESS = 'bc1qrefundaddress0000000000000000000000';
const admin = { token: 'admin' } as const;

async function orderPaidOverTen(foreignId: string) {
  const paid = await paidOrder(harness, foreignId);
  expect(new Decimal(paid.net_amount).gt(10)).toBe(true);
  return paid;
}

/**
 * The refund's answer once it is settled: a 409 `in_progress` or a 504 (cut off under load, outcome unknown) is
 * asked again with the same request, as a client would; the refund is idempotent by its foreign_id.
 */
async function refund(order: string, body: Record<string, unknown>) {
  for (let attempt = 1; ; attempt++) {
    const answer = await harness.api('POST', `/invoices/${order}/refunds`, {
      ...admin,
      body: { address: ADDRESS, ...body },
    });
    const unsettled = answer.status === 504 || answer.body?.error?.code === 'in_progress';
    if (!unsettled || attempt === 5) return answer;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

const orderView = async (order: string) =>
  (await harness.api('GET', `/invoices/${order}`, { token: 'storefront' })).body;

/** The stored refund once `done` holds: read from the table, so that no lookup of the route's helps it along. */
const storedOnce = (foreignId: string, done: (record: Record<string, any>) => boolean) =>
  waitFor(async () => (await storedRecord(harness.stack, 'REFUND', foreignId)) ?? {}, done, 30_000);

const eventsOf = (foreignId: string) =>
  receiver.received
    .filter((event) => JSON.parse(event.body).data.foreign_id === foreignId)
    .sort((a, b) => a.sequence - b.sequence);

/** The refund's webhook events once the last has arrived: their types, and the status each one's view shows. */
async function eventsUntil(foreignId: string, last: string) {
  const events = await waitFor(
    async () => eventsOf(foreignId),
    (found) => found.some((event) => event.type === last),
    30_000,
  );
  return events.map((event) => [event.type, JSON.parse(event.body).data.status]);
}

async function eurBalance(): Promise<Decimal> {
  const { body } = await harness.control('GET', '/balances');
  return new Decimal(body.data.find((entry: { currency: string }) => entry.currency === 'EUR').balance);
}

test('a refund over the limit waits for approval, still counts, and once approved is confirmed', async () => {
  const order = await orderPaidOverTen('appr-ok');
  const net = new Decimal(order.net_amount);

  const held = await refund('appr-ok', { foreign_id: 'appr-ok-r1', debited_amount: '15' });
  expect(held.status).toBe(201);
  expect(held.body).toMatchObject({ status: 'awaiting_approval', final: false, failure_message: null });
  expect(held.body.history).toEqual([expect.objectContaining({ status: 'pending', source: 'create' })]);
  // Still counted against the order: only what is left can be refunded.
  const waiting = await orderView('appr-ok');
  expect(waiting.refunds).toEqual([expect.objectContaining({ foreign_id: 'appr-ok-r1', status: 'pending' })]);
  expect(waiting.refundable).toEqual({ amount: net.minus(15).toFixed(8), currency: 'EUR' });
  const over = await refund('appr-ok', {
    foreign_id: 'appr-ok-r2',
    debited_amount: net.minus(14).toFixed(8),
  });
  expect(over.body.error).toMatchObject({ code: 'refund_exceeds_refundable' });
  // Under the limit, a refund goes out as before.
  const small = await refund('appr-ok', { foreign_id: 'appr-ok-r3', debited_amount: '5' });
  expect(small.body).toMatchObject({ status: 'processing' });

  expect((await harness.control('POST', '/withdrawals/appr-ok-r1/approve')).status).toBe(200);
  const approved = await storedOnce('appr-ok-r1', (record) => record.status === 'processing');
  expect(approved.history.at(-1)).toMatchObject({ status: 'processing', source: 'callback' });
  await harness.control('POST', '/withdrawals/appr-ok-r1/complete', { status: 'confirmed' });
  const confirmed = await storedOnce('appr-ok-r1', (record) => record.status === 'confirmed');
  expect(confirmed.history.map((change: { status: string }) => change.status)).toEqual([
    'pending',
    'processing',
    'confirmed',
  ]);

  const view = await harness.api('GET', '/refunds/appr-ok-r1', admin);
  expect(view.body).toMatchObject({ status: 'confirmed', final: true });
  const after = await orderView('appr-ok');
  expect(after.refunds.map((entry: { status: string }) => entry.status)).toEqual(['confirmed', 'pending']);
  expect(after.refundable).toEqual({ amount: net.minus(20).toFixed(8), currency: 'EUR' });
  expect(await eventsUntil('appr-ok-r1', 'refund.confirmed')).toEqual([
    ['refund.awaiting_approval', 'awaiting_approval'],
    ['refund.sent', 'processing'],
    ['refund.confirmed', 'confirmed'],
  ]);
});

test.each([
  ['decline', 'declined', 'Withdrawal declined.'],
  ['cancel', 'cancelled', 'Withdrawal cancelled.'],
])(
  'a refund waiting for approval, on %s, ends %s and releases its amount on the order',
  async (action, status, message) => {
    const foreignId = `appr-${action}`;
    const order = await orderPaidOverTen(foreignId);
    const balanceBefore = await eurBalance();
    const held = await refund(foreignId, { foreign_id: `${foreignId}-r1` });
    expect(held.body).toMatchObject({ status: 'awaiting_approval', debited_amount: order.net_amount });
    expect((await orderView(foreignId)).refundable.amount).toBe('0.00000000');

    expect((await harness.control('POST', `/withdrawals/${foreignId}-r1/${action}`)).status).toBe(200);
    const ended = await storedOnce(`${foreignId}-r1`, (record) => record.status === status);
    expect(ended.history.at(-1)).toMatchObject({ status, source: 'callback' });

    const view = await harness.api('GET', `/refunds/${foreignId}-r1`, admin);
    expect(view.body).toMatchObject({ status, final: true, failure_message: message });
    const after = await orderView(foreignId);
    expect(after.refunds).toEqual([expect.objectContaining({ foreign_id: `${foreignId}-r1`, status })]);
    expect(after.refundable).toEqual({ amount: order.net_amount, currency: 'EUR' });
    expect((await eurBalance()).toFixed(8)).toBe(balanceBefore.toFixed(8));
    expect(await eventsUntil(`${foreignId}-r1`, `refund.${status}`)).toEqual([
      ['refund.awaiting_approval', 'awaiting_approval'],
      [`refund.${status}`, status],
    ]);
    // Released: the whole net can be refunded again.
    const again = await refund(foreignId, { foreign_id: `${foreignId}-r2` });
    expect(again.status).toBe(201);
    expect(again.body.debited_amount).toBe(order.net_amount);
  },
);

test('a decline racing two more refunds of the whole net: the order never gives more than it netted', async () => {
  const order = await orderPaidOverTen('appr-race');
  const net = order.net_amount as string;
  expect((await refund('appr-race', { foreign_id: 'appr-race-r1' })).body.status).toBe('awaiting_approval');

  const [declined, second, third] = await Promise.all([
    harness.control('POST', '/withdrawals/appr-race-r1/decline'),
    refund('appr-race', { foreign_id: 'appr-race-r2', debited_amount: net }),
    refund('appr-race', { foreign_id: 'appr-race-r3', debited_amount: net }),
  ]);
  expect(declined.status).toBe(200);
  await storedOnce('appr-race-r1', (record) => record.status === 'declined');
  const made = [second, third].filter((answer) => answer.status === 201);
  for (const answer of [second, third].filter((answer) => answer.status !== 201)) {
    expect(answer.body.error).toMatchObject({ code: 'refund_exceeds_refundable' });
  }
  expect(made.length).toBeLessThanOrEqual(1);

  const view = await orderView('appr-race');
  const counted = view.refunds.filter((entry: { status: string }) =>
    ['pending', 'confirmed'].includes(entry.status),
  );
  const taken = counted.reduce(
    (sum: Decimal, entry: { debited_amount: string }) => sum.plus(entry.debited_amount),
    new Decimal(0),
  );
  expect(taken.lte(net)).toBe(true);
  expect(view.refundable.amount).toBe(new Decimal(net).minus(taken).toFixed(8));
  expect(counted.length).toBe(made.length);
});

describe('with every callback lost, the sweep alone', () => {
  const orders: Record<string, { net_amount: string }> = {};
  beforeAll(async () => {
    // Paid while callbacks still arrive: only the refunds' news is lost.
    for (const id of ['appr-sweep-ok', 'appr-sweep-no']) orders[id] = await orderPaidOverTen(id);
    await harness.control('POST', '/callbacks', { url: 'http://127.0.0.1:9/callbacks', retry_ms: [] });
  });

  /** Runs the sweep until the stored refund reaches `status`: each run looks only at what is due. */
  async function sweptTo(foreignId: string, status: string) {
    return waitFor(
      async () => {
        await harness.stack.runJob('reconcile');
        return (await storedRecord(harness.stack, 'REFUND', foreignId)) ?? {};
      },
      (record) => record.status === status,
      30_000,
    );
  }

  test('follows an approved refund to confirmed', async () => {
    const held = await refund('appr-sweep-ok', { foreign_id: 'appr-sweep-ok-r1', debited_amount: '12' });
    expect(held.body.status).toBe('awaiting_approval');
    await harness.control('POST', '/withdrawals/appr-sweep-ok-r1/approve');
    const approved = await sweptTo('appr-sweep-ok-r1', 'processing');
    expect(approved.history.at(-1)).toMatchObject({ status: 'processing', source: 'reconcile' });
    await harness.control('POST', '/withdrawals/appr-sweep-ok-r1/complete', { status: 'confirmed' });
    await sweptTo('appr-sweep-ok-r1', 'confirmed');
    const view = await orderView('appr-sweep-ok');
    expect(view.refunds).toEqual([
      expect.objectContaining({ status: 'confirmed', debited_amount: '12.00000000' }),
    ]);
    expect(await eventsUntil('appr-sweep-ok-r1', 'refund.confirmed')).toEqual([
      ['refund.awaiting_approval', 'awaiting_approval'],
      ['refund.sent', 'processing'],
      ['refund.confirmed', 'confirmed'],
    ]);
  });

  test('follows a declined refund to declined, and releases its amount', async () => {
    const order = orders['appr-sweep-no'];
    const held = await refund('appr-sweep-no', { foreign_id: 'appr-sweep-no-r1' });
    expect(held.body.status).toBe('awaiting_approval');
    await harness.control('POST', '/withdrawals/appr-sweep-no-r1/decline');
    const ended = await sweptTo('appr-sweep-no-r1', 'declined');
    expect(ended.history.at(-1)).toMatchObject({ status: 'declined', source: 'reconcile' });
    const view = await orderView('appr-sweep-no');
    expect(view.refunds).toEqual([expect.objectContaining({ status: 'declined' })]);
    expect(view.refundable.amount).toBe(order.net_amount);
    expect(await eventsUntil('appr-sweep-no-r1', 'refund.declined')).toEqual([
      ['refund.awaiting_approval', 'awaiting_approval'],
      ['refund.declined', 'declined'],
    ]);
  });
});
