import { startSandbox, type Sandbox } from '../../sandbox/server';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { waitFor } from '../support/wait';

// The local stack pointed at "another service": a separately started sandbox with its own keys, configured the
// way PROCESSING_BASE_URL, PROCESSING_API_KEY and PROCESSING_SECRET_KEY configure `npm start`.
let service: Sandbox;
let harness: Harness;
const keys = { apiKey: 'external-api-key', secretKey: 'external-secret-key' };
/** Long enough that the rotation case below runs its steps within one period on a busy machine. */
const SECRET_TTL_SECONDS = 10;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  service = await startSandbox({ port: 0, ...keys });
  harness = await startHarness({
    processing: { baseUrl: service.url, ...keys },
    env: { SECRET_TTL_SECONDS: String(SECRET_TTL_SECONDS) },
  });
  await control('POST', '/callbacks', { url: `${harness.stack.url}/callbacks` });
});
afterAll(async () => {
  await harness.close();
  await service.close();
});

async function control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${service.url}/_sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

const processingKeysSecret = (apiKey: string, secretKey: string) =>
  JSON.stringify({ processing_api_key: apiKey, processing_secret_key: secretKey });

test('checkout, payment and callback work against a separately started service', async () => {
  expect(harness.stack.sandbox).toBeUndefined();
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody('ext-1'),
  });
  expect(created.status).toBe(201);
  expect(created.body.payment_url.startsWith(service.url)).toBe(true);

  await control('POST', '/invoices/ext-1/pay', { kind: 'full' });
  const polled = await waitFor(
    () => harness.api('GET', '/invoices/ext-1', { token: 'storefront' }),
    (answer) => answer.body.status === 'paid',
  );
  expect(polled.body.status).toBe('paid');
});

test('the secrets are fetched once per container and TTL, not per request', async () => {
  const before = harness.stack.secrets.calls();
  const started = Date.now();
  for (let i = 0; i < 20; i++) {
    expect((await harness.api('GET', '/invoices/ext-1', { token: 'storefront' })).status).toBe(200);
    expect((await harness.api('GET', '/rates?from=BTC&to=EUR', { token: 'storefront' })).status).toBe(200);
  }
  // Per request it would be 60 fetches (a token check each, and the keys for each rate). Cached, each of the two
  // secrets is fetched at most once in each TTL the loop touches: one on a quick machine, a few on a busy one.
  const ttlsElapsed = Math.ceil((Date.now() - started) / (SECRET_TTL_SECONDS * 1000));
  expect(harness.stack.secrets.calls() - before).toBeLessThanOrEqual(2 * ttlsElapsed);
});

test('a key rotation heals: bad_header_key makes the function refetch the secret once', async () => {
  const { stack } = harness;
  // Containers hold a key that the merchant has since rotated away (a call that signs loads it)...
  stack.secrets.put(stack.secretIds.processingKeys, processingKeysSecret('rotated-away-key', keys.secretKey));
  await sleep(SECRET_TTL_SECONDS * 1000 + 100);
  await harness.api('GET', '/balances?live=true', { token: 'admin' });
  // ...and the operator has put the new key into the secret, well within the cache's TTL.
  stack.secrets.put(stack.secretIds.processingKeys, processingKeysSecret(keys.apiKey, keys.secretKey));
  await sleep(1100);

  const before = stack.secrets.calls();
  const healed = await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('ext-2') });
  expect(healed.status).toBe(201);
  expect(stack.secrets.calls()).toBe(before + 1);
  const signedWith = (await control('GET', '/requests?path=/v2/invoices/create')).body.requests;
  expect(signedWith.map((request: { status: number }) => request.status)).toEqual([201, 403, 201]);
});
