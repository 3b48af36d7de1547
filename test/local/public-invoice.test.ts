// The customer's view of one invoice (GET /public/invoices/{foreign_id}): opened by the checkout's client secret in
// a header, reduced to what a customer may see, one read with ETag/304, readable from any origin.
import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // the refusals below log warnings; keep the run quiet
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

const PUBLIC_FIELDS = [
  'amount',
  'confirmations',
  'currency',
  'exception',
  'expires_at',
  'final',
  'foreign_id',
  'owed_amount',
  'paid_amount',
  'pay_address',
  'pay_amount',
  'pay_currency',
  'pay_tag',
  'payment_uri',
  'payment_url',
  // The customer's own transactions, for the widget's "See your payment".
  'payments',
  'rate',
  'seconds_left',
  'status',
  'title',
  'url_failed',
  'url_success',
];

async function checkout(foreignId: string, overrides: Record<string, unknown> = {}) {
  const body = checkoutBody(foreignId, { metadata: { cart: 'c-1' }, ...overrides });
  const created = await harness.api('POST', '/checkout', { token: 'storefront', body });
  expect(created.status).toBe(201);
  return { body, secret: created.body.client_secret as string };
}

const read = (foreignId: string, headers: Record<string, string> = {}) =>
  harness.api('GET', `/public/invoices/${foreignId}`, { headers });

test('the checkout answers a client secret, the same on a replay, and the table keeps only its hash', async () => {
  const { body, secret } = await checkout('pub-secret');
  expect(secret).toMatch(/^cs_[A-Za-z0-9_-]{43}$/);
  const again = await harness.api('POST', '/checkout', { token: 'storefront', body });
  expect(again.status).toBe(200);
  expect(again.body.client_secret).toBe(secret);
  expect((await checkout('pub-secret-other')).secret).not.toBe(secret);

  const client = new DynamoDBClient({
    endpoint: harness.stack.dynamo.url,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  const { Items } = await client.send(new ScanCommand({ TableName: harness.stack.tableName }));
  client.destroy();
  const stored = JSON.stringify(Items);
  expect(stored).toContain('clientSecretHash');
  expect(stored).not.toContain(secret.slice(3));
});

test('with its secret: the reduced view, no e-mail, metadata or history, readable from any origin', async () => {
  const { secret } = await checkout('pub-view', { email: 'hidden@example.com' });
  const answer = await read('pub-view', { 'x-client-secret': secret });
  expect(answer.status).toBe(200);
  expect(Object.keys(answer.body).sort()).toEqual(PUBLIC_FIELDS);
  expect(answer.body).toMatchObject({
    foreign_id: 'pub-view',
    status: 'awaiting_payment',
    final: false,
    pay_currency: 'BTC',
    // Nothing seen yet; the rate is the order amount over the crypto amount, to cents.
    confirmations: null,
    rate: expect.stringMatching(/^\d+\.\d\d$/),
    url_success: 'https://shop.example/ok',
    url_failed: 'https://shop.example/failed',
  });
  expect(answer.body.payment_uri).toBe(
    `bitcoin:${answer.body.pay_address}?amount=${answer.body.owed_amount.replace(/0+$/, '')}`,
  );
  expect(JSON.stringify(answer.body)).not.toMatch(/hidden@example\.com|c-1|metadata|history/);
  expect(answer.headers.get('access-control-allow-origin')).toBe('*');
  expect(answer.headers.get('access-control-expose-headers')).toBe('etag');
});

test('a wrong, missing or other invoice secret answers 404 as a missing invoice does', async () => {
  const { secret } = await checkout('pub-guarded');
  const { secret: otherSecret } = await checkout('pub-guarded-other');
  const missing = await read('pub-no-such-order', { 'x-client-secret': secret });
  expect(missing.status).toBe(404);
  for (const headers of [
    {} as Record<string, string>,
    { 'x-client-secret': `${secret}x` },
    { 'x-client-secret': secret.slice(0, -1) },
    { 'x-client-secret': otherSecret },
    { 'x-client-secret': '' },
  ]) {
    const refused = await read('pub-guarded', headers);
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 404, body: missing.body });
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
  }
});

test('ETag and If-None-Match: 304 while unchanged, 200 with a new tag once paid', async () => {
  const { secret } = await checkout('pub-etag');
  const headers = { 'x-client-secret': secret };
  const first = await read('pub-etag', headers);
  const etag = first.headers.get('etag')!;
  const unchanged = await read('pub-etag', { ...headers, 'if-none-match': etag });
  expect(unchanged.status).toBe(304);
  expect(unchanged.headers.get('access-control-allow-origin')).toBe('*');

  await harness.control('POST', '/invoices/pub-etag/pay', { kind: 'full' });
  const paid = await waitFor(
    () => read('pub-etag', { ...headers, 'if-none-match': etag }),
    (answer) => answer.status === 200 && answer.body.status === 'paid',
  );
  expect(paid.body).toMatchObject({ status: 'paid', final: true, payment_uri: null, seconds_left: null });
  expect(paid.headers.get('etag')).not.toBe(etag);
});

test('the CORS preflight allows the secret and If-None-Match headers, and no credentials', async () => {
  const response = await fetch(`${harness.stack.url}/public/invoices/pub-any`, {
    method: 'OPTIONS',
    headers: {
      origin: 'https://shop.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x-client-secret, if-none-match',
    },
  });
  expect(response.status).toBe(204);
  expect(Object.fromEntries(response.headers)).toMatchObject({
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'GET',
    'access-control-allow-headers': 'x-client-secret, if-none-match',
  });
  expect(response.headers.get('access-control-allow-credentials')).toBeNull();
});

test('the bearer routes stay closed to other origins', async () => {
  const answer = await harness.api('GET', '/invoices/pub-view', { token: 'storefront' });
  expect(answer.headers.get('access-control-allow-origin')).toBeNull();
});
