// Issue 41: every event delivered is listed and can be re-sent for the retention period (30 days, like Stripe's), one
// delivered at its first attempt as well as one that needed a retry; once the period has passed it is gone.
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { waitFor } from '../support/wait';

const DAY_MS = 86_400_000;
const secret = newWebhookSecret();
let harness: Harness;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret);
  harness = await startHarness({ webhooks: { url: receiver.url, secret, intervalMs: 50 } });
});
afterAll(async () => {
  jest.restoreAllMocks();
  await harness.close();
  await receiver.close();
});

interface Listed {
  id: string;
  type: string;
  state: string;
  attempts: number;
  last_status: number | null;
}

const listed = async (): Promise<Listed[]> =>
  (await harness.api('GET', '/webhooks/deliveries?limit=100', { token: 'admin' })).body.data;
const receivedAs = (id: string) => receiver.received.filter((event) => event.id === id);

test('an event delivered at its first attempt is listed, re-sent signed under its own id, and gone after 30 days', async () => {
  expect(
    (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('history-1') })).status,
  ).toBe(201);
  const first = (await waitFor(
    async () => receiver.received.find((event) => JSON.parse(event.body).data.foreign_id === 'history-1'),
    (found) => found !== undefined,
    30_000,
  ))!;
  const entry = (await waitFor(listed, (list) => list.some(({ id }) => id === first.id), 30_000)).find(
    ({ id }) => id === first.id,
  );
  expect(entry).toMatchObject({
    type: first.type,
    state: 'delivered',
    attempts: 1,
    last_status: 200,
    last_error: null,
  });
  expect(receivedAs(first.id)).toHaveLength(1);

  const resent = await harness.api('POST', `/webhooks/deliveries/${first.id}/resend`, { token: 'admin' });
  expect(resent.status).toBe(200);
  expect(resent.body).toMatchObject({ id: first.id, state: 'pending' });
  harness.stack.dispatchWebhooks();
  // The receiver verified its signature again: it keeps only events that verify.
  const [, again] = await waitFor(
    async () => receivedAs(first.id),
    (found) => found.length === 2,
    30_000,
  );
  expect(again.body).toBe(first.body);
  expect(again.headers!['webhook-id']).toBe(first.id);
  expect(again.headers!['webhook-signature']).toMatch(/^v1,/);
  await waitFor(
    listed,
    (list) =>
      list.some(({ id, state, attempts }) => id === first.id && state === 'delivered' && attempts === 2),
    30_000,
  );

  // 30 days after its last attempt it is gone, though DynamoDB may delete the item only later.
  const realNow = Date.now.bind(Date);
  const offset = 30 * DAY_MS + 60_000;
  jest.spyOn(Date, 'now').mockImplementation(() => realNow() + offset);
  try {
    expect((await listed()).map(({ id }) => id)).not.toContain(first.id);
    const gone = await harness.api('POST', `/webhooks/deliveries/${first.id}/resend`, { token: 'admin' });
    expect(gone.status).toBe(404);
  } finally {
    jest.restoreAllMocks();
  }
  expect((await listed()).map(({ id }) => id)).toContain(first.id);
});
