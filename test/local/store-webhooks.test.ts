// Webhooks per store (issue 33), through the real handlers: two stores with their own endpoints, the same order id
// in each; each endpoint receives only its own store's events, signed with its own store's secret, and each store's
// deliveries list and re-send routes show and reach only its own. Each endpoint refuses an event's first attempt, so
// that every event waits as a delivery (one delivered at its first attempt leaves none to list or re-send).
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { expectDocumentedWebhook } from '../support/contract';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { waitFor } from '../support/wait';

const STORE = 'shop-b';
const ORDER = 'same-order-1';
const defaultSecret = newWebhookSecret();
let harness: Harness;
/** The default store's endpoint, and the other store's: each verifies with its own store's secret alone. */
let receivers: { default: WebhookReceiver; other: WebhookReceiver };
let tokens: { storefront: string; admin: string };

/** Answers 500 to each event's first attempt, 200 after. */
function refusingFirstAttempts(): (event: ReceivedEvent) => number {
  const refused = new Set<string>();
  return (event) => (refused.has(event.id) ? 200 : (refused.add(event.id), 500));
}

beforeAll(async () => {
  const defaultReceiver = await startWebhookReceiver(defaultSecret, { answer: refusingFirstAttempts() });
  harness = await startHarness({
    webhooks: { url: defaultReceiver.url, secret: defaultSecret, intervalMs: 50 },
  });
  // The store's webhook secret is answered when it is made: its endpoint is set once a receiver holds it.
  const made = await harness.api('POST', '/stores', {
    token: 'platform',
    body: { id: STORE, name: 'Shop B' },
  });
  expect(made.status).toBe(201);
  tokens = { storefront: made.body.storefront_token, admin: made.body.admin_token };
  const other = await startWebhookReceiver(made.body.webhook_secret, { answer: refusingFirstAttempts() });
  const changed = await harness.api('PATCH', `/stores/${STORE}`, {
    token: 'platform',
    body: { webhook_url: other.url },
  });
  expect(changed.status).toBe(200);
  receivers = { default: defaultReceiver, other };
});
afterAll(async () => {
  await harness.close();
  await Promise.all(Object.values(receivers).map((receiver) => receiver.close()));
});

const paidIn = (receiver: WebhookReceiver) =>
  waitFor(
    async () => receiver.received,
    (received) => received.some((event) => event.type === 'invoice.paid'),
    30_000,
  );

/** Each event's id once: a delivery is at least once, so a receiver may see one twice. */
const ids = (events: ReceivedEvent[]) => [...new Set(events.map((event) => event.id))].sort();

test("each store's endpoint receives its own store's events alone, signed with its own secret", async () => {
  for (const token of ['storefront', tokens.storefront]) {
    expect((await harness.api('POST', '/checkout', { token, body: checkoutBody(ORDER) })).status).toBe(201);
  }
  // The other store shares the deployment's account: its upstream foreign_id carries its id (STORES.md, 5).
  for (const upstream of [ORDER, `${STORE}!${ORDER}`]) {
    const paid = await harness.control('POST', `/invoices/${encodeURIComponent(upstream)}/pay`, {
      kind: 'full',
    });
    expect(paid.status).toBe(200);
  }
  const [own, others] = [await paidIn(receivers.default), await paidIn(receivers.other)];

  // Each receiver verified every event it kept with its own store's secret: another's signature would get 401.
  for (const events of [own, others]) {
    expect(events.map((event) => event.type)).toEqual(
      expect.arrayContaining(['invoice.awaiting_payment', 'invoice.paid']),
    );
    expect(events.every((event) => JSON.parse(event.body).data.foreign_id === ORDER)).toBe(true);
  }
  // Each payload names the store whose record it is: `default` for the default store's.
  const storeIds = (events: ReceivedEvent[]) =>
    new Set(events.map((event) => JSON.parse(event.body).store_id));
  expect(storeIds(own)).toEqual(new Set(['default']));
  expect(storeIds(others)).toEqual(new Set([STORE]));
  for (const event of [...own, ...others]) expectDocumentedWebhook(JSON.parse(event.body));
  const ownIds = new Set(ids(own));
  expect(others.filter((event) => ownIds.has(event.id))).toEqual([]);

  // The lists: each store's admin token sees its own deliveries, the platform token the store it names.
  const list = async (token: string, headers: Record<string, string> = {}) =>
    ids((await harness.api('GET', '/webhooks/deliveries?limit=100', { token, headers })).body.data);
  await waitFor(
    () => list('admin'),
    (listed) => listed.length >= own.length,
  );
  expect(await list('admin')).toEqual(ids(own));
  expect(await list(tokens.admin)).toEqual(ids(others));
  expect(await list('platform', { 'store-id': STORE })).toEqual(ids(others));
});

test("a store's re-send routes reach its own deliveries only: another store's event is not found", async () => {
  const [own] = receivers.default.received;
  const [others] = receivers.other.received;
  const resend = (token: string, id: string) =>
    harness.api('POST', `/webhooks/deliveries/${id}/resend`, { token });

  expect((await resend(tokens.admin, own.id)).status).toBe(404);
  expect((await resend('admin', others.id)).status).toBe(404);
  const again = await resend(tokens.admin, others.id);
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ id: others.id, state: 'pending' });
  // Sent again to its own store's endpoint, verified there.
  const copies = await waitFor(
    async () => receivers.other.received.filter((event) => event.id === others.id),
    (found) => found.length >= 2,
    30_000,
  );
  expect(copies.length).toBeGreaterThanOrEqual(2);
  expect(receivers.default.received.filter((event) => event.id === others.id)).toEqual([]);

  const failedAgain = await harness.api('POST', '/webhooks/deliveries/resend-failed', {
    token: tokens.admin,
    body: {},
  });
  expect(failedAgain).toMatchObject({ status: 200, body: { resent: 0, more: false } });
});
