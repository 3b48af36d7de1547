// Issue 30's red case through the real handlers, on the local stack that sizes items as DynamoDB does: an order
// with every text at its bound in 4-byte characters, a shop endpoint slower than the dispatcher's timeout, and
// 6 or more events waiting in the order's outbox. Every callback is answered 2xx, and every event is delivered,
// once, in sequence.
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

/**
 * The dispatcher gives an endpoint this long; the endpoint below holds its first answer longer. Long enough for the
 * wide order's steps on a busy machine: the events pile up only while the dispatcher waits.
 */
const TIMEOUT_MS = 30_000;
const WIDE = '\u{1F600}';
const wide = (characters: number) => WIDE.repeat(characters);
const FOREIGN_ID = 'wide-1';

const secret = newWebhookSecret();
let harness: Harness;
let receiver: WebhookReceiver;
let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));
let firstAttempt: ReceivedEvent | undefined;
let firstAttemptAt = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret, {
    answer: async (event) => {
      if (firstAttempt) return 200;
      firstAttempt = event;
      firstAttemptAt = Date.now();
      // Held until the test has seen the events pile up, then past the dispatcher's timeout: it gave up by then.
      await held;
      const pastTimeout = firstAttemptAt + TIMEOUT_MS + 100 - Date.now();
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, pastTimeout)));
      return 503;
    },
  });
  harness = await startHarness({
    webhooks: { url: receiver.url, secret, intervalMs: 50 },
    env: {
      WEBHOOK_RETRY_SCALE: '0.01',
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
      // An attempt's lease outlasts its timeout, as the deployment's do.
      WEBHOOK_LEASE_MS: String(TIMEOUT_MS * 1.5),
    },
  });
});
afterAll(async () => {
  release();
  await harness.close();
  await receiver.close();
});

const control = async (foreignId: string, action: string, body: object = {}) => {
  const answer = await harness.control('POST', `/invoices/${foreignId}/${action}`, body);
  expect(answer.status).toBe(200);
};
const view = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
const checkout = (foreignId: string, overrides: Record<string, unknown> = {}) =>
  harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody(foreignId, overrides) });

/** Every text the checkout takes at its bound, in 4-byte characters. */
const WIDEST = {
  type: 'good_until_expired',
  title: wide(50),
  description: wide(1000),
  end_user_reference: wide(100),
  email: `${wide(240)}@example.com`,
  url_success: `https://shop.example/${wide(2027)}`,
  url_failed: `https://shop.example/${wide(2027)}`,
  metadata: Object.fromEntries(Array.from({ length: 20 }, (_, n) => [`key-${n}`, wide(500)])),
};

test('an order with every text at its bound in 4-byte characters gets each callback 2xx and each event once, in sequence', async () => {
  // Another order's first event holds the dispatcher: what the wide order's changes make waits in its outbox.
  expect((await checkout('holds-the-dispatcher')).status).toBe(201);
  await waitFor(
    async () => firstAttempt,
    (attempt) => attempt !== undefined,
    30_000,
  );
  // Refused by the payment service (a currency it does not have): invoice.failed, then a checkout that takes the
  // foreign_id over carries that event, with the request it was made with.
  const refused = await checkout(FOREIGN_ID, { ...WIDEST, currency: 'ZZZ' });
  expect(refused.status).toBeGreaterThanOrEqual(400);
  expect(refused.status).toBeLessThan(500);
  expect((await checkout(FOREIGN_ID, WIDEST)).status).toBe(201);
  await control(FOREIGN_ID, 'pay', { kind: 'partial' });
  await waitFor(
    () => view(FOREIGN_ID),
    (body) => body.exception === 'paid_partial',
    30_000,
  );
  await control(FOREIGN_ID, 'pay', { kind: 'over', hold: true });
  await waitFor(
    () => view(FOREIGN_ID),
    (body) => body.status === 'confirming',
    30_000,
  );
  await control(FOREIGN_ID, 'settle');
  await waitFor(
    () => view(FOREIGN_ID),
    (body) => body.status === 'paid',
    30_000,
  );
  const record = await storedRecord(harness.stack, 'INVOICE', FOREIGN_ID);
  const waiting = record!.outbox.pending.length;
  release();

  const seq = record!.outbox.seq;
  const events = await waitFor(
    async () => receiver.received.filter((event) => JSON.parse(event.body).data.foreign_id === FOREIGN_ID),
    (found) => found.some((event) => event.sequence === seq),
    60_000,
  );
  console.log(
    `${waiting} events waited in the outbox at once; delivered: ${events.map((event) => event.type).join(', ')}`,
  );
  expect(waiting).toBeGreaterThanOrEqual(6);
  // Each once, by id, in sequence; the refused order's event shows the request it was made with.
  expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
  expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
  expect(events[0].type).toBe('invoice.failed');
  expect(JSON.parse(events[0].body).data.currency).toBe('ZZZ');
  expect(JSON.parse(events.at(-1)!.body).data).toEqual({ ...(await view(FOREIGN_ID)), seconds_left: null });

  const callbacks = (await harness.control('GET', '/callbacks')).body.deliveries as Array<{ status: number }>;
  expect(callbacks.length).toBeGreaterThanOrEqual(3);
  expect(callbacks.map((delivery) => delivery.status)).toEqual(callbacks.map(() => 200));
}, 120_000);
