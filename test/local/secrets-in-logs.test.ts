import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { invoiceCallbackBody, postCallback, signBody, signedHeaders } from '../support/callbacks';
import { clearFaults, injectFault } from '../support/faults';
import { checkoutBody, refundBody, startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
/** Every answer the plugin gave, headers and body, as text. */
const answers: string[] = [];
const webhookSecret = newWebhookSecret();
let receiver: WebhookReceiver;
/** The client secret the checkout of `logs-1` answered: only that answer may hold it. */
let clientSecret: string;

beforeAll(async () => {
  output = captureOutput();
  // The shop refuses each event's first attempt, so that the dispatcher's retry path logs too.
  const attempted = new Set<string>();
  receiver = await startWebhookReceiver(webhookSecret, {
    answer: ({ id }) => (attempted.has(id) ? 200 : (attempted.add(id), 500)),
  });
  harness = await startHarness({
    env: { PROCESSING_TIMEOUT_MS: '500', WEBHOOK_RETRY_SCALE: '0.01' },
    webhooks: { url: receiver.url, secret: webhookSecret, intervalMs: 50 },
  });
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
  output.restore();
});

async function api(
  method: string,
  path: string,
  options: Parameters<Harness['api']>[2] = {},
): Promise<Answer> {
  const answer = await harness.api(method, path, options);
  answers.push(JSON.stringify([...answer.headers]), JSON.stringify(answer.body));
  return answer;
}

async function callback(body: string, headers: Record<string, string>, contentType?: string) {
  const answer = await postCallback(harness, body, headers, contentType);
  answers.push(JSON.stringify([...answer.headers]), JSON.stringify(answer.body));
  return answer;
}

async function happyFlow() {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody('logs-1'),
  });
  expect(created.status).toBe(201);
  clientSecret = created.body.client_secret;
  const replayed = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody('logs-1'),
  });
  expect(replayed.status).toBe(200);
  const publicView = await api('GET', '/public/invoices/logs-1', {
    headers: { 'x-client-secret': clientSecret },
  });
  expect(publicView.status).toBe(200);
  await harness.control('POST', '/invoices/logs-1/pay', { kind: 'full' });
  const paid = await waitFor(
    () => api('GET', '/invoices/logs-1', { token: 'storefront' }),
    (answer) => answer.body.status === 'paid',
  );
  expect(paid.body.status).toBe('paid');

  expect((await api('POST', '/checkout', { token: 'storefront', body: checkoutBody('logs-2') })).status).toBe(
    201,
  );
  expect((await api('POST', '/invoices/logs-2/cancel', { token: 'admin' })).status).toBe(200);
  expect((await api('POST', '/refunds', { token: 'admin', body: refundBody('logs-refund') })).status).toBe(
    201,
  );
  await harness.control('POST', '/withdrawals/logs-refund/complete', { status: 'confirmed' });
  expect((await api('GET', '/refunds/logs-refund', { token: 'admin' })).status).toBe(200);
  expect((await api('GET', '/transactions?foreign_id=logs-refund', { token: 'admin' })).status).toBe(200);
  expect((await api('GET', '/balances?live=true', { token: 'admin' })).status).toBe(200);
  expect((await api('GET', '/balances', { token: 'admin' })).status).toBe(200);
  expect((await api('GET', '/balances/history', { token: 'admin' })).status).toBe(200);
  expect((await api('GET', '/rates?from=BTC&to=EUR', { token: 'storefront' })).status).toBe(200);
  expect((await api('GET', '/pairs?from=BTC&to=EUR', { token: 'storefront' })).status).toBe(200);
  answers.push(JSON.stringify(await harness.stack.runJob('snapshot-balances')));
  answers.push(JSON.stringify(await harness.stack.runJob('reconcile')));
  // The webhooks of the paid order, each refused once and then acknowledged, and the admin's view of them.
  await waitFor(
    async () => receiver.received.map(({ type }) => type),
    (types) => types.includes('invoice.paid'),
    30_000,
  );
  expect((await api('GET', '/webhooks/deliveries?limit=100', { token: 'admin' })).status).toBe(200);
}

async function failingFlow() {
  // Credentials: none, wrong, the storefront token on an admin route, a token in the wrong place.
  expect((await api('GET', '/invoices/logs-1')).status).toBe(401);
  expect((await api('GET', '/invoices/logs-1', { token: 'wrong-token' })).status).toBe(401);
  expect((await api('GET', '/balances', { token: 'storefront' })).status).toBe(403);
  const misplaced = await api('GET', '/balances', {
    headers: { authorization: `Token ${harness.stack.adminToken}` },
  });
  expect(misplaced.status).toBe(401);

  // Bad input, wrong media type, unknown records.
  expect(
    (await api('POST', '/checkout', { token: 'storefront', body: checkoutBody('logs-3', { amount: 'x' }) }))
      .status,
  ).toBe(400);
  expect((await api('POST', '/checkout', { token: 'storefront', body: 'not json' })).status).toBe(400);
  const textBody = await api('POST', '/refunds', {
    token: 'admin',
    body: 'foreign_id=x',
    headers: { 'content-type': 'text/plain' },
  });
  expect(textBody.status).toBe(415);
  expect((await api('GET', '/invoices/logs-missing', { token: 'storefront' })).status).toBe(404);
  // The public view with a wrong client secret, or one of another order.
  for (const [foreignId, secret] of [
    ['logs-1', `${clientSecret}x`],
    ['logs-1', clientSecret.slice(0, -1)],
    ['logs-2', clientSecret],
  ]) {
    const wrong = await api('GET', `/public/invoices/${foreignId}`, {
      headers: { 'x-client-secret': secret },
    });
    expect(wrong.status).toBe(404);
  }

  // Upstream faults, including a stale-key refusal that makes the plugin refetch its secret.
  await injectFault(harness, '/v2/invoices/create', '5xx');
  expect((await api('POST', '/checkout', { token: 'storefront', body: checkoutBody('logs-4') })).status).toBe(
    502,
  );
  await injectFault(harness, '/v2/invoices/create', 'hang');
  expect((await api('POST', '/checkout', { token: 'storefront', body: checkoutBody('logs-5') })).status).toBe(
    504,
  );
  await injectFault(harness, '/v2/invoices/create', 'reset_after_commit');
  expect((await api('POST', '/checkout', { token: 'storefront', body: checkoutBody('logs-6') })).status).toBe(
    504,
  );
  expect((await api('POST', '/checkout', { token: 'storefront', body: checkoutBody('logs-6') })).status).toBe(
    201,
  );
  await harness.control('POST', '/faults', {
    path: '/v2/accounts/list',
    kind: '403',
    code: 'bad_header_signature',
    times: 1,
  });
  expect((await api('GET', '/balances?live=true', { token: 'admin' })).status).toBe(200);
  await harness.control('POST', '/faults', {
    path: '/v2/accounts/list',
    kind: '403',
    code: 'bad_header_key',
    times: 10,
  });
  expect((await api('GET', '/balances?live=true', { token: 'admin' })).status).toBe(502);
  await clearFaults(harness);
  const rejected = await api('POST', '/refunds', {
    token: 'admin',
    body: refundBody('logs-too-much', { debited_amount: '99999999' }),
  });
  expect(rejected.status).toBe(422);

  // Callbacks: a bad signature, missing headers, and one signed over other bytes.
  const body = invoiceCallbackBody('logs-6', 'confirmed');
  const { apiKey } = harness.stack.sandbox!;
  expect(
    (await callback(body, { 'X-Processing-Key': apiKey, 'X-Processing-Signature': signBody('guess', body) }))
      .status,
  ).toBe(403);
  expect((await callback(body, {})).status).toBe(403);
  expect((await callback(body, signedHeaders(harness, `${body} `))).status).toBe(403);
  expect((await callback(body, signedHeaders(harness, body), 'application/octet-stream')).status).toBe(200);
}

/** What a store's creation and rotation answered: only those answers may hold them (not recorded in `answers`). */
const storeSecrets: Record<string, string> = {
  ownApiKey: 'logs-own-api-key',
  ownSecretKey: 'logs-own-secret-key',
  changedSecretKey: 'logs-changed-secret-key',
};

async function storeFlow() {
  const platform = { token: 'platform' } as const;
  const ownAccount = {
    api_key: storeSecrets.ownApiKey,
    secret_key: storeSecrets.ownSecretKey,
    base_url: 'https://pay.test',
  };
  const made = await harness.api('POST', '/stores', {
    ...platform,
    body: { id: 'logs-store', name: 'Logs', processing: ownAccount },
  });
  expect(made.status).toBe(201);
  Object.assign(storeSecrets, {
    storeStorefrontToken: made.body.storefront_token,
    storeAdminToken: made.body.admin_token,
    storeWebhookSecret: made.body.webhook_secret.slice('whsec_'.length),
  });
  const rotated = await harness.api('POST', '/stores/logs-store/tokens/rotate', {
    ...platform,
    body: { grace_seconds: 0 },
  });
  expect(rotated.status).toBe(200);
  storeSecrets.rotatedAdminToken = rotated.body.admin_token;
  const patched = await api('PATCH', '/stores/logs-store', {
    ...platform,
    body: { processing: { ...ownAccount, secret_key: storeSecrets.changedSecretKey } },
  });
  expect(patched.status).toBe(200);
  expect((await api('GET', '/stores/logs-store', platform)).status).toBe(200);
  expect((await api('GET', '/stores', platform)).status).toBe(200);
  expect((await api('GET', '/tokens/current', { token: storeSecrets.rotatedAdminToken })).status).toBe(200);
  // Refused: a rotated-out token, a store token on the platform's routes, a disabled store, bad input.
  expect((await api('GET', '/tokens/current', { token: storeSecrets.storeAdminToken })).status).toBe(401);
  expect((await api('GET', '/stores', { token: storeSecrets.rotatedAdminToken })).status).toBe(403);
  expect((await api('POST', '/stores/logs-store/disable', platform)).status).toBe(200);
  expect((await api('GET', '/tokens/current', { token: storeSecrets.rotatedAdminToken })).status).toBe(403);
  const bad = await api('PATCH', '/stores/logs-store', {
    ...platform,
    body: { processing: { api_key: storeSecrets.ownApiKey, secret_key: '' } },
  });
  expect(bad.status).toBe(400);
}

test('a full run, with errors, writes no secret or token to the logs or to any answer', async () => {
  await happyFlow();
  await failingFlow();
  await storeFlow();

  const { apiKey, secretKey } = harness.stack.sandbox!;
  const secrets = {
    apiKey,
    secretKey,
    storefrontToken: harness.stack.storefrontToken,
    adminToken: harness.stack.adminToken,
    // Only the checkout's own answer holds the client secret (it is not recorded in `answers`).
    clientSecret,
    webhookSecret: webhookSecret.slice('whsec_'.length),
    platformToken: harness.stack.platformToken,
    ...storeSecrets,
  };
  const logs = output.text();
  const replies = answers.join('\n');
  // The capture did see the plugin's logs, refusals and failures included.
  expect(logs).toContain('request refused');
  expect(logs).toContain('request failed');
  expect(logs).toContain('webhook dispatch done');
  expect(logs).toContain('webhook delivered');
  expect(replies).toContain('processor_auth_failed');
  for (const [name, value] of Object.entries(secrets)) {
    expect({ name, inLogs: logs.includes(value), inAnswers: replies.includes(value) }).toEqual({
      name,
      inLogs: false,
      inAnswers: false,
    });
  }
});
