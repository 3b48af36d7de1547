// A store's webhook secret rotated (issue 41), through the real handlers: during the overlap each webhook carries
// one signature per secret, each verifiable with its own; once the overlap ends only the new secret signs.
import { Webhook } from 'standardwebhooks';
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../local/webhook-receiver';
import { isWebhookSecret, newWebhookSecret } from '../../webhooks/signing';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { waitFor } from '../support/wait';

const STORE = 'shop-r';
let harness: Harness;
let receiver: WebhookReceiver;
let defaultReceiver: WebhookReceiver;
let storefront: string;
let firstSecret: string;

beforeAll(async () => {
  const defaultSecret = newWebhookSecret();
  defaultReceiver = await startWebhookReceiver(defaultSecret);
  harness = await startHarness({
    webhooks: { url: defaultReceiver.url, secret: defaultSecret, intervalMs: 50 },
  });
  const made = await harness.api('POST', '/stores', {
    token: 'platform',
    body: { id: STORE, name: 'Shop R' },
  });
  expect(made.status).toBe(201);
  storefront = made.body.storefront_token;
  firstSecret = made.body.webhook_secret;
  // Verifies with the first secret: a webhook it keeps carried a signature that secret makes.
  receiver = await startWebhookReceiver(firstSecret);
  const changed = await harness.api('PATCH', `/stores/${STORE}`, {
    token: 'platform',
    body: { webhook_url: receiver.url },
  });
  expect(changed.status).toBe(200);
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
  await defaultReceiver.close();
});

const rotate = (body: Record<string, unknown>, store = STORE) =>
  harness.api('POST', `/stores/${store}/webhook-secret/rotate`, { token: 'platform', body });

/** The first webhook of a new order's checkout. */
async function webhookOfNewOrder(order: string): Promise<ReceivedEvent> {
  expect(
    (await harness.api('POST', '/checkout', { token: storefront, body: checkoutBody(order) })).status,
  ).toBe(201);
  const found = await waitFor(
    async () => receiver.received.filter((event) => JSON.parse(event.body).data?.foreign_id === order),
    (events) => events.length > 0,
    30_000,
  );
  return found[0];
}

/** Whether `signature` alone, with the event's other headers, verifies with `secret`. */
function verifies(event: ReceivedEvent, signature: string, secret: string): boolean {
  try {
    new Webhook(secret).verify(event.body, { ...event.headers!, 'webhook-signature': signature });
    return true;
  } catch {
    return false;
  }
}

test('during the overlap a webhook carries both signatures, each verifiable with its own secret; after it, the new one alone', async () => {
  const rotated = await rotate({});
  expect(rotated.status).toBe(200);
  const secondSecret: string = rotated.body.webhook_secret;
  expect(isWebhookSecret(secondSecret)).toBe(true);
  expect(secondSecret).not.toBe(firstSecret);
  expect(rotated.body.store.id).toBe(STORE);
  // A day by default.
  const expiresAt = Date.parse(rotated.body.previous_secret_expires_at);
  expect(expiresAt).toBeGreaterThan(Date.now() + 86_400_000 - 600_000);

  const during = await webhookOfNewOrder('rotation-1');
  const [first, second, ...more] = during.headers!['webhook-signature'].split(' ');
  expect(more).toEqual([]);
  expect(verifies(during, second, firstSecret)).toBe(true);
  expect(verifies(during, first, secondSecret)).toBe(true);
  expect(verifies(during, first, firstSecret)).toBe(false);

  // No overlap: the secret it replaces (the second) stops at once, and the first is gone from the secret.
  const again = await rotate({ grace_seconds: 0 });
  expect(again.status).toBe(200);
  const thirdSecret: string = again.body.webhook_secret;
  await receiver.close();
  receiver = await startWebhookReceiver(thirdSecret);
  expect(
    (
      await harness.api('PATCH', `/stores/${STORE}`, {
        token: 'platform',
        body: { webhook_url: receiver.url },
      })
    ).status,
  ).toBe(200);
  const after = await webhookOfNewOrder('rotation-2');
  const signatures = after.headers!['webhook-signature'].split(' ');
  expect(signatures).toHaveLength(1);
  expect(verifies(after, signatures[0], thirdSecret)).toBe(true);
});

test("the default store's secret is the deployment's: 409 default_store; a bad grace is named", async () => {
  const refused = await rotate({}, 'default');
  expect(refused.status).toBe(409);
  expect(refused.body.error.code).toBe('default_store');
  const bad = await rotate({ grace_seconds: -1 });
  expect(bad.status).toBe(400);
  expect(Object.keys(bad.body.error.fields)).toEqual(['grace_seconds']);
});
