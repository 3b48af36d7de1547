// Store changes that meet (issue 40), through the real handlers on the local stack: two changes of keys at once never
// leave the store item's base URL with the other's keys in its secret, and a create whose secret write failed is
// finished by the same request again. Secrets Manager is reached through a proxy that can refuse its calls.
import { startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { startRefusingProxy, type RefusingProxy } from '../support/refusing-proxy';

let harness: Harness;
let proxy: RefusingProxy;
let output: CapturedOutput;
const platform = { token: 'platform' } as const;

beforeAll(async () => {
  output = captureOutput(); // a refused secret write is logged as the route's error
  proxy = await startRefusingProxy();
  harness = await startHarness({ env: { AWS_ENDPOINT_URL_SECRETS_MANAGER: proxy.url } });
  proxy.target = harness.stack.secrets.url;
});
afterAll(async () => {
  await harness.close();
  await proxy.close();
  output.restore();
});

const secretOf = (storeId: string) => {
  const text = harness.stack.secrets.valueOf(`payments-plugin/local/stores/${storeId}`);
  return text === undefined ? undefined : JSON.parse(text);
};
const createStore = (body: object) => harness.api('POST', '/stores', { ...platform, body });
const account = (n: number) => ({
  api_key: `race-api-${n}`,
  secret_key: `race-secret-${n}`,
  base_url: `https://pay-${n}.test`,
});

test('two changes of keys at once: the store names the base URL of the keys in its secret, round after round', async () => {
  expect((await createStore({ id: 'shop-race', name: 'Race' })).status).toBe(201);
  // Each secret write takes its own time, so that either change's may land last.
  proxy.delayMs = (target) => (target === 'secretsmanager.PutSecretValue' ? Math.random() * 40 : 0);
  for (let round = 0; round < 25; round++) {
    const ours = [2 * round + 1, 2 * round + 2];
    const answers = await Promise.all(
      ours.map((n) =>
        harness.api('PATCH', '/stores/shop-race', { ...platform, body: { processing: account(n) } }),
      ),
    );
    const changed = ours.filter((_, i) => answers[i].status === 200);
    const refused = answers.filter((answer) => answer.status !== 200);
    // The other met a change under way: 409 in_progress, and it wrote nothing.
    expect(refused.map((answer) => [answer.status, answer.body.error?.code])).toEqual(
      refused.map(() => [409, 'in_progress']),
    );
    // One of them holds the store at any time: at least one goes through.
    expect(changed.length).toBeGreaterThan(0);
    answers.forEach((answer, i) => {
      if (answer.status === 200) expect(answer.body.base_url).toBe(account(ours[i]).base_url);
    });

    const store: Answer = await harness.api('GET', '/stores/shop-race', platform);
    const n = Number(/^https:\/\/pay-(\d+)\.test$/.exec(store.body.base_url)?.[1]);
    expect({ round, changedBy: changed.includes(n) }).toEqual({ round, changedBy: true });
    expect({ round, keys: secretOf('shop-race') }).toEqual({
      round,
      keys: expect.objectContaining({
        processing_api_key: account(n).api_key,
        processing_secret_key: account(n).secret_key,
      }),
    });
  }
  proxy.delayMs = undefined;
}, 120_000);

test('a change of keys and a webhook secret rotation at once: one at a time, and the secret keeps what each answered', async () => {
  const made = await createStore({ id: 'shop-rotate-race', name: 'Rotate race', processing: account(100) });
  expect(made.status).toBe(201);
  proxy.delayMs = (target) => (target === 'secretsmanager.PutSecretValue' ? Math.random() * 40 : 0);
  let keys = account(100);
  let webhookSecret: string = made.body.webhook_secret;
  let previousSecret: string | undefined;
  for (let round = 0; round < 15; round++) {
    const next = account(101 + round);
    const [changed, rotated] = await Promise.all([
      harness.api('PATCH', '/stores/shop-rotate-race', { ...platform, body: { processing: next } }),
      harness.api('POST', '/stores/shop-rotate-race/webhook-secret/rotate', { ...platform, body: {} }),
    ]);
    const refused = [changed, rotated].filter((answer) => answer.status !== 200);
    // The loser met the other under way: 409 in_progress, and it wrote nothing.
    expect(refused.map((answer) => [answer.status, answer.body.error?.code])).toEqual(
      refused.map(() => [409, 'in_progress']),
    );
    expect(refused.length).toBeLessThan(2);
    if (changed.status === 200) keys = next;
    if (rotated.status === 200)
      [webhookSecret, previousSecret] = [rotated.body.webhook_secret, webhookSecret];
    expect({ round, secret: secretOf('shop-rotate-race') }).toEqual({
      round,
      secret: {
        processing_api_key: keys.api_key,
        processing_secret_key: keys.secret_key,
        webhook_secret: webhookSecret,
        ...(previousSecret !== undefined && { previous_webhook_secret: previousSecret }),
      },
    });
  }
  proxy.delayMs = undefined;
}, 120_000);

test('a create whose secret write failed: the same body again answers 201 with working tokens; another body 409', async () => {
  const body = {
    id: 'shop-retry',
    name: 'Retry',
    processing: { api_key: 'retry-api-key', secret_key: 'retry-secret-key', base_url: 'https://pay.test' },
  };
  proxy.refuse = (target, text) =>
    target === 'secretsmanager.CreateSecret' && text.includes('/stores/shop-retry');
  const failed = await createStore(body);
  proxy.refuse = undefined;
  expect(proxy.refused).toBeGreaterThan(0);
  expect({ status: failed.status, code: failed.body.error?.code }).toEqual({
    status: 503,
    code: 'temporarily_unavailable',
  });
  expect(secretOf('shop-retry')).toBeUndefined();
  // Until it is finished, no route finds it, and the list leaves it out.
  expect((await harness.api('GET', '/stores/shop-retry', platform)).body.error?.code).toBe('store_not_found');
  const list: Answer = await harness.api('GET', '/stores?limit=100', platform);
  expect(list.body.data.map((store: { id: string }) => store.id)).not.toContain('shop-retry');
  expect(
    (await harness.api('GET', '/tokens/current', { ...platform, headers: { 'store-id': 'shop-retry' } })).body
      .error?.code,
  ).toBe('store_not_found');

  // Another body for the id: store_exists, as for any id taken.
  const other = await createStore({ ...body, name: 'Other' });
  expect({ status: other.status, code: other.body.error?.code }).toEqual({
    status: 409,
    code: 'store_exists',
  });

  const made = await createStore(body);
  expect(made.status).toBe(201);
  expect(made.body.store).toMatchObject({ id: 'shop-retry', account: 'own', base_url: 'https://pay.test' });
  expect(secretOf('shop-retry')).toEqual({
    processing_api_key: 'retry-api-key',
    processing_secret_key: 'retry-secret-key',
    webhook_secret: made.body.webhook_secret,
  });
  for (const [token, scope] of [
    [made.body.storefront_token, 'storefront'],
    [made.body.admin_token, 'admin'],
  ]) {
    expect((await harness.api('GET', '/tokens/current', { token })).body).toEqual({
      scope,
      store_id: 'shop-retry',
    });
  }
  expect((await harness.api('GET', '/invoices', { token: made.body.admin_token })).status).toBe(200);
  expect((await harness.api('GET', '/stores/shop-retry', platform)).body.id).toBe('shop-retry');

  // Once finished, the same body again is a 409 as for any id taken: its tokens are answered once.
  const again = await createStore(body);
  expect({ status: again.status, code: again.body.error?.code }).toEqual({
    status: 409,
    code: 'store_exists',
  });
  expect(output.text()).not.toContain('retry-secret-key');
}, 60_000);
