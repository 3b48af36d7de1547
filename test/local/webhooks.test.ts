import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { checkoutBody, paidOrder, startHarness, type Harness } from '../support/local-stack';
import { waitFor } from '../support/wait';

// The retry schedule at 1/100: the first retries 25-50 ms apart.
const SCALE = 0.01;
const secret = newWebhookSecret();
let harness: Harness;
let receiver: WebhookReceiver;
/** What the endpoint answers; each test sets it. */
let answer: (event: ReceivedEvent) => number | Promise<number> = () => 200;
const attempts: ReceivedEvent[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret, {
    answer: (event) => {
      attempts.push(event);
      return answer(event);
    },
  });
  harness = await startHarness({
    webhooks: { url: receiver.url, secret, intervalMs: 50 },
    // The in-flight case holds an attempt open while it re-sends: neither the attempt's timeout nor its lease, which
    // outlasts it, may end meanwhile, however busy the machine.
    env: { WEBHOOK_RETRY_SCALE: String(SCALE), WEBHOOK_TIMEOUT_MS: '60000', WEBHOOK_LEASE_MS: '90000' },
  });
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
});

const eventsOf = (foreignId: string) =>
  receiver.received.filter((event) => JSON.parse(event.body).data.foreign_id === foreignId);

test('a sandbox payment reaches the receiver as a verified invoice.paid, with the view as data', async () => {
  answer = () => 200;
  expect(
    (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('hook-1') })).status,
  ).toBe(201);
  const paidAt = Date.now();
  await harness.control('POST', '/invoices/hook-1/pay', { kind: 'full' });
  const events = await waitFor(
    async () => eventsOf('hook-1'),
    (found) => found.some((event) => event.type === 'invoice.paid'),
    30_000,
  );
  const latencyMs = Date.now() - paidAt;
  console.log(`invoice.paid verified at the receiver ${latencyMs} ms after the sandbox payment`);
  const paid = events.find((event) => event.type === 'invoice.paid')!;
  const payload = JSON.parse(paid.body);
  const view = (await harness.api('GET', '/invoices/hook-1', { token: 'storefront' })).body;
  expect(payload).toEqual({
    id: paid.id,
    type: 'invoice.paid',
    created_at: expect.any(String),
    sequence: paid.sequence,
    store_id: 'default',
    data: { ...view, seconds_left: null },
  });
  // awaiting_payment first, then paid: the sequence only grows.
  expect(events.map((event) => event.type)[0]).toBe('invoice.awaiting_payment');
  expect(events.map((event) => event.sequence)).toEqual(
    [...events.map((e) => e.sequence)].sort((a, b) => a - b),
  );
});

test('an exception cleared by the rest of the payment is pushed as invoice.exception, as setting it was', async () => {
  answer = () => 200;
  const body = checkoutBody('hook-cleared', { type: 'good_until_expired' });
  expect((await harness.api('POST', '/checkout', { token: 'storefront', body })).status).toBe(201);
  await harness.control('POST', '/invoices/hook-cleared/pay', { kind: 'partial' });
  await waitFor(
    async () => eventsOf('hook-cleared'),
    (found) => found.some((event) => event.type === 'invoice.exception'),
    30_000,
  );
  await harness.control('POST', '/invoices/hook-cleared/pay', { kind: 'full' });
  const events = await waitFor(
    async () => eventsOf('hook-cleared'),
    (found) =>
      found.some((event) => event.type === 'invoice.paid') &&
      found.filter((event) => event.type === 'invoice.exception').length >= 2,
    30_000,
  );
  const exceptions = events
    .filter((event) => event.type === 'invoice.exception')
    .map((event) => JSON.parse(event.body).data.exception);
  expect(exceptions).toEqual(['paid_partial', null]);
  expect((await harness.api('GET', '/invoices/hook-cleared', { token: 'storefront' })).body).toMatchObject({
    status: 'paid',
    exception: null,
  });
});

test('an endpoint that answers 500 to the first 3 attempts of each event gets every event, acknowledged once, in seq order', async () => {
  // Refused by count, not for a while: however slow the run, each event is refused 3 times, then acknowledged.
  const refused = new Map<string, number>();
  answer = (event) => {
    const times = refused.get(event.id) ?? 0;
    if (times >= 3) return 200;
    refused.set(event.id, times + 1);
    return 500;
  };
  const orders = ['hook-retry-1', 'hook-retry-2', 'hook-retry-3'];
  for (const id of orders) {
    expect(
      (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody(id) })).status,
    ).toBe(201);
    await harness.control('POST', `/invoices/${id}/pay`, { kind: 'full' });
  }
  for (const id of orders) {
    const events = await waitFor(
      async () => eventsOf(id),
      (found) => found.some((event) => event.type === 'invoice.paid'),
      60_000,
    );
    expect(events.map((event) => event.type)).toEqual([
      'invoice.awaiting_payment',
      'invoice.confirming',
      'invoice.paid',
    ]);
    expect(events.map((event) => event.sequence)).toEqual([1, 2, 3]);
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
  }
  // Refused 3 times, then acknowledged once.
  const awaiting = attempts.filter(
    (event) =>
      event.type === 'invoice.awaiting_payment' && orders.includes(JSON.parse(event.body).data.foreign_id),
  );
  expect(awaiting.length).toBe(orders.length * 4);

  const list = await harness.api('GET', '/webhooks/deliveries?limit=100', { token: 'admin' });
  expect(list.status).toBe(200);
  const retried = list.body.data.find(
    (delivery: any) => delivery.foreign_id === 'hook-retry-1' && delivery.type === 'invoice.awaiting_payment',
  );
  expect(retried).toMatchObject({ state: 'delivered', attempts: 4, last_status: 200, last_error: null });
  expect(JSON.stringify(list.body)).not.toContain(secret.slice(6));
});

test('a re-send while an attempt is under way starts no second send of the event beside it', async () => {
  let releaseHeld = () => undefined as void;
  const held = new Promise<void>((resolve) => (releaseHeld = resolve));
  let heldId: string | undefined;
  const underWay = new Map<string, number>();
  const refused = new Set<string>();
  let mostAtOnce = 0;
  answer = async (event) => {
    const now = (underWay.get(event.id) ?? 0) + 1;
    underWay.set(event.id, now);
    mostAtOnce = Math.max(mostAtOnce, now);
    try {
      if (JSON.parse(event.body).data.foreign_id !== 'hook-in-flight') return 200;
      // The first attempt refused: the event waits as a delivery, whose retry the shop then holds open.
      if (!refused.has(event.id)) {
        refused.add(event.id);
        return 500;
      }
      if (heldId === undefined) {
        heldId = event.id;
        await held;
      }
      return 200;
    } finally {
      underWay.set(event.id, underWay.get(event.id)! - 1);
    }
  };
  // Released whatever fails, so that a failure here leaves no attempt open for the next tests.
  try {
    expect(
      (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('hook-in-flight') }))
        .status,
    ).toBe(201);
    await waitFor(
      async () => heldId,
      (id) => id !== undefined,
      30_000,
    );
    const resent = await harness.api('POST', `/webhooks/deliveries/${heldId}/resend`, { token: 'admin' });
    expect(resent.status).toBe(409);
    expect(resent.body.error.code).toBe('in_progress');
    // Runs meanwhile find it held: none starts a second send.
    harness.stack.dispatchWebhooks();
  } finally {
    releaseHeld();
  }
  const delivered = await waitFor(
    async () => receiver.received.filter((event) => event.id === heldId),
    (found) => found.length > 0,
    30_000,
  );
  expect(delivered).toHaveLength(1);
  expect(mostAtOnce).toBe(1);
  await waitFor(
    async () => (await harness.api('GET', '/webhooks/deliveries?limit=100', { token: 'admin' })).body.data,
    (list: Array<{ id: string; state: string }>) =>
      list.some((delivery) => delivery.id === heldId && delivery.state === 'delivered'),
    30_000,
  );
  // Once the attempt has ended, the re-send goes through.
  const again = await harness.api('POST', `/webhooks/deliveries/${heldId}/resend`, { token: 'admin' });
  expect(again.status).toBe(200);
});

test('an admin re-sends an event that needed a retry: the same id and body arrive again; one delivered at its first attempt is not listed', async () => {
  const refused = new Set<string>();
  answer = (event) => {
    if (JSON.parse(event.body).data.foreign_id !== 'hook-resend-1' || refused.has(event.id)) return 200;
    refused.add(event.id);
    return 500;
  };
  for (const id of ['hook-resend-1', 'hook-at-once-1']) {
    expect(
      (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody(id) })).status,
    ).toBe(201);
  }
  const [first] = await waitFor(
    async () => eventsOf('hook-resend-1'),
    (found) => found.length > 0,
    30_000,
  );
  await waitFor(
    async () => (await harness.api('GET', '/webhooks/deliveries?limit=100', { token: 'admin' })).body.data,
    (list: Array<{ id: string; state: string }>) =>
      list.some((delivery) => delivery.id === first.id && delivery.state === 'delivered'),
    30_000,
  );
  // Delivered at its first attempt: it left no delivery to list or re-send.
  const [atOnce] = await waitFor(
    async () => eventsOf('hook-at-once-1'),
    (found) => found.length > 0,
    30_000,
  );
  const listed = (await harness.api('GET', '/webhooks/deliveries?limit=100', { token: 'admin' })).body.data;
  expect(listed.map((delivery: { id: string }) => delivery.id)).not.toContain(atOnce.id);
  expect(
    (await harness.api('POST', `/webhooks/deliveries/${atOnce.id}/resend`, { token: 'admin' })).status,
  ).toBe(404);
  const resent = await harness.api('POST', `/webhooks/deliveries/${first.id}/resend`, { token: 'admin' });
  expect(resent.status).toBe(200);
  expect(resent.body).toMatchObject({ id: first.id, state: 'pending' });
  harness.stack.dispatchWebhooks();
  const again = await waitFor(
    async () => receiver.received.filter((event) => event.id === first.id),
    (found) => found.length === 2,
    30_000,
  );
  expect(again.map((event) => event.body)).toEqual([first.body, first.body]);
  expect((await harness.api('POST', '/webhooks/deliveries/evt_nope/resend', { token: 'admin' })).status).toBe(
    400,
  );
  expect(
    (await harness.api('POST', `/webhooks/deliveries/evt_${'A'.repeat(24)}/resend`, { token: 'admin' }))
      .status,
  ).toBe(404);
  const none = await harness.api('POST', '/webhooks/deliveries/resend-failed', { token: 'admin' });
  expect(none.body).toEqual({ resent: 0, more: false });
});

test('the re-send of every failed event refuses a body with fields, naming them, as every route does', async () => {
  const resendFailed = (body?: unknown) =>
    harness.api('POST', '/webhooks/deliveries/resend-failed', { token: 'admin', body });
  const refused = await resendFailed({ limit: 5 });
  expect(refused.status).toBe(400);
  expect(refused.body.error).toMatchObject({
    code: 'invalid_request',
    fields: { limit: 'is not a known field' },
  });
  expect((await resendFailed([])).status).toBe(400);
  expect((await resendFailed({})).status).toBe(200);
  expect((await resendFailed()).status).toBe(200);
});

test("a claim link's refund is pushed at each stage: awaiting_claim (no link in it), sent, confirmed; or claim_cancelled", async () => {
  answer = () => 200;
  await paidOrder(harness, 'hook-claim');
  const refundTypes = (foreignId: string) =>
    eventsOf(foreignId)
      .filter((event) => event.type.startsWith('refund.'))
      .map((event) => event.type);
  const made = await harness.api('POST', '/invoices/hook-claim/refunds', {
    token: 'admin',
    body: { foreign_id: 'hook-claim-r1', debited_amount: '1.00' },
  });
  expect(made.status).toBe(201);
  await waitFor(
    async () => refundTypes('hook-claim-r1'),
    (types) => types.length > 0,
    30_000,
  );
  const waiting = eventsOf('hook-claim-r1').find((event) => event.type === 'refund.awaiting_claim')!;
  expect(JSON.parse(waiting.body).data).toMatchObject({ status: 'awaiting_claim', claim_url: null });
  expect(waiting.body).not.toContain('rc_'); // the claim token never leaves in a webhook

  const [foreignId, token] = new URL(made.body.claim_url).hash.slice(1).split('/');
  const claimed = await harness.api('POST', `/public/refund-claims/${foreignId}`, {
    headers: { 'x-claim-token': token! },
    body: { address: 'bc1qhookclaimaddress000000000000000000000' },
  });
  expect(claimed.status).toBe(200);
  await harness.control('POST', '/withdrawals/hook-claim-r1/complete', { status: 'confirmed' });
  await waitFor(
    async () => refundTypes('hook-claim-r1'),
    (types) => types.includes('refund.confirmed'),
    30_000,
  );
  expect(refundTypes('hook-claim-r1')).toEqual(['refund.awaiting_claim', 'refund.sent', 'refund.confirmed']);

  const second = await harness.api('POST', '/invoices/hook-claim/refunds', {
    token: 'admin',
    body: { foreign_id: 'hook-claim-r2', debited_amount: '1.00' },
  });
  expect(second.status).toBe(201);
  expect((await harness.api('POST', '/refunds/hook-claim-r2/cancel-claim', { token: 'admin' })).status).toBe(
    200,
  );
  await waitFor(
    async () => refundTypes('hook-claim-r2'),
    (types) => types.includes('refund.claim_cancelled'),
    30_000,
  );
  expect(refundTypes('hook-claim-r2')).toEqual(['refund.awaiting_claim', 'refund.claim_cancelled']);
});
