// Every function's AWS calls, recorded while it serves a walk through every route and job, must be granted by its
// own role in the synthesized template: a missing grant fails here, not in AWS. Each function runs bundled in its own
// process (as in Lambda, with its own caches) under its own access key id, so the local DynamoDB and Secrets Manager
// endpoints, behind a recording proxy, can tell whose call each is. Grants no call used are listed, not failed.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { definePaymentsPluginApp } from '../../lib/define-app';
import { jobs, routes, type FunctionName } from '../../lib/routes';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import { startGateway } from '../../local/gateway';
import { bundleFunctions, startLambdaProcess, type LambdaProcess } from '../../local/lambda-process';
import { invokeWithTimeout } from '../../local/lambda-context';
import { listen, type Listening } from '../../local/listen';
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../local/webhook-receiver';
import { SECRET_ENV, type SecretName } from '../../secrets/fields';
import { invoiceCallbackBody, signBody, signedHeaders } from '../support/callbacks';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { stageContext } from '../support/stage-context';
import { waitFor } from '../support/wait';

const ROOT = path.join(__dirname, '..', '..');
const names: FunctionName[] = [...routes.map((route) => route.name), ...jobs.map((job) => job.name)];

/** The template of a stage with webhooks on, so that every grant the dispatcher can hold is in it. */
const template = Template.fromStack(
  definePaymentsPluginApp(
    new App({
      context: {
        'aws:cdk:bundling-stacks': [],
        ...stageContext({ webhookUrl: 'https://shop.test/webhooks' }),
      },
    }),
  ),
).toJSON();
const resources = template.Resources as Record<string, { Type: string; Properties: any }>;
const functionIdOf = (name: FunctionName) =>
  Object.keys(resources).find(
    (id) =>
      resources[id].Type === 'AWS::Lambda::Function' &&
      resources[id].Properties.Description?.endsWith(`(functions/${name}.ts)`),
  )!;
const tableId = Object.keys(resources).find((id) => resources[id].Type === 'AWS::DynamoDB::GlobalTable')!;
/** The stores' own secrets are granted by name prefix (issue 33): a call on one matches the prefix's grant. */
const storeSecretsPrefix: string =
  resources[functionIdOf('create-store')].Properties.Environment.Variables.STORE_SECRETS_PREFIX;

/** "action resource" for every (action, resource) pair the policies on a function's role allow. */
function grantsOf(name: FunctionName): Set<string> {
  const roleId = resources[functionIdOf(name)].Properties.Role['Fn::GetAtt'][0];
  const grants = new Set<string>();
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::IAM::Policy') continue;
    if (!resource.Properties.Roles.some((role: { Ref?: string }) => role.Ref === roleId)) continue;
    for (const statement of resource.Properties.PolicyDocument.Statement) {
      if (statement.Effect !== 'Allow') continue;
      for (const action of [statement.Action].flat()) {
        for (const target of [statement.Resource].flat()) grants.add(`${action} ${JSON.stringify(target)}`);
      }
    }
  }
  return grants;
}

/** The deployment's secrets a function's environment names. */
const secretReadsOfTemplate = (name: FunctionName) =>
  (Object.keys(SECRET_ENV) as SecretName[]).filter(
    (secret) => SECRET_ENV[secret] in resources[functionIdOf(name)].Properties.Environment.Variables,
  );

interface Call {
  fn: string;
  action: string;
  /** The resource as the template writes it (a reference), for the grant to match. */
  resource: unknown;
}

let harness: Harness;
let output: CapturedOutput;
let receiver: WebhookReceiver;
const attemptsAtShop: ReceivedEvent[] = [];
let gateway: Listening;
const proxies: Listening[] = [];
const processes = new Map<FunctionName, LambdaProcess>();
const calls: Call[] = [];
const outDir = mkdtempSync(path.join(tmpdir(), 'iam-calls-'));

/** The function a call came from: the access key id in its signature is `fn-<name>`. */
const callerOf = (authorization: string | undefined) =>
  /Credential=fn-([a-z-]+)\//.exec(authorization ?? '')?.[1] ?? 'unknown';

/** Forwards every request to `target`, noting who called what on which resource. */
async function recordingProxy(target: string, note: (caller: string, action: string, body: any) => void) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = String(req.headers['x-amz-target'] ?? '').split('.')[1] ?? 'unknown';
      try {
        note(callerOf(req.headers.authorization), action, JSON.parse(body.toString('utf8') || '{}'));
      } catch {
        note(callerOf(req.headers.authorization), action, {});
      }
      const upstream = httpRequest(
        `${target}${req.url}`,
        { method: req.method, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(body);
    });
  });
  const listening = await listen(server);
  proxies.push(listening);
  return listening.url;
}

beforeAll(async () => {
  output = captureOutput();
  harness = await startHarness();
  const { stack } = harness;
  // The shop refuses every attempt: its events wait as deliveries, which the re-send routes reach.
  receiver = await startWebhookReceiver(stack.webhookSecret, {
    answer: (event) => {
      attemptsAtShop.push(event);
      return 500;
    },
  });
  const secretNames = Object.fromEntries(Object.entries(stack.secretIds).map(([name, id]) => [id, name]));
  const secretRef = (name: FunctionName, secret: SecretName) =>
    resources[functionIdOf(name)].Properties.Environment.Variables[SECRET_ENV[secret]];
  const tableArn = { 'Fn::GetAtt': [tableId, 'Arn'] };
  const dynamo = await recordingProxy(stack.dynamo.url, (fn, action, body) => {
    const tables = body.TableName ? [body.TableName] : Object.keys(body.RequestItems ?? {});
    for (const table of tables) {
      expect(table).toBe(stack.tableName);
      const resource = body.IndexName
        ? { 'Fn::Join': ['', [tableArn, `/index/${body.IndexName}`]] }
        : tableArn;
      calls.push({ fn, action: `dynamodb:${action}`, resource });
    }
  });
  const storeSecretsResource = JSON.parse(
    [...grantsOf('create-store')]
      .find((grant) => grant.startsWith('secretsmanager:CreateSecret '))!
      .slice('secretsmanager:CreateSecret '.length),
  );
  const secrets = await recordingProxy(stack.secrets.url, (fn, action, body) => {
    const named: string = body.SecretId ?? body.Name ?? '';
    if (named.startsWith(storeSecretsPrefix)) {
      calls.push({ fn, action: `secretsmanager:${action}`, resource: storeSecretsResource });
      return;
    }
    const secret = secretNames[body.SecretId] as SecretName | undefined;
    // A secret the function's environment does not name has no reference: that call is refused below.
    const resource = secret
      ? (secretRef(fn as FunctionName, secret) ?? `the ${secret} secret`)
      : body.SecretId;
    calls.push({ fn, action: `secretsmanager:${action}`, resource });
  });

  const bundles = await bundleFunctions(
    Object.fromEntries(names.map((name) => [name, path.join(ROOT, 'functions', `${name}.ts`)])),
    outDir,
  );
  for (const name of names) {
    const variables = resources[functionIdOf(name)].Properties.Environment.Variables as Record<
      string,
      unknown
    >;
    const env: Record<string, string> = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: `fn-${name}`,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: dynamo,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets,
      AWS_REQUEST_TIMEOUT_MS: '10000',
      // No stream here: the test runs the dispatcher itself, reading the index, as the local stack does.
      WEBHOOK_OUTBOX_GRACE_MS: '0',
    };
    for (const [variable, value] of Object.entries(variables)) {
      if (typeof value === 'string') env[variable] = value;
    }
    // The template's references, pointed at the local resources; only the secrets the template names.
    env.TABLE_NAME = stack.tableName;
    env.PROCESSING_BASE_URL = stack.sandbox!.url;
    for (const secret of Object.keys(SECRET_ENV) as SecretName[]) {
      if (SECRET_ENV[secret] in variables) env[SECRET_ENV[secret]] = stack.secretIds[secret];
    }
    if ('WEBHOOK_URL' in variables) {
      Object.assign(env, { WEBHOOK_URL: receiver.url, WEBHOOK_ALLOW_LOOPBACK_HTTP: 'true' });
      // Locally there is no wake queue: the test runs the dispatcher itself.
      delete env.WEBHOOK_WAKE_QUEUE_URL;
    }
    processes.set(name, await startLambdaProcess(bundles[name], env));
  }
  const invoke = (name: FunctionName) => (event: unknown) =>
    invokeWithTimeout(
      async (given: unknown, context) =>
        (await processes.get(name)!.invoke(given, name, context.getRemainingTimeInMillis())).result,
      event,
      name,
      25_000,
    ).answer;
  gateway = await startGateway(routes.map((route) => ({ route, handler: invoke(route.name) })));
}, 120_000);

afterAll(async () => {
  await Promise.all([...processes.values()].map((lambda) => lambda.close()));
  await gateway?.close();
  await receiver?.close();
  for (const proxy of proxies) await proxy.close();
  await harness?.close();
  output?.restore();
  rmSync(outDir, { recursive: true, force: true });
});

const runJob = (name: FunctionName) =>
  processes.get(name)!.invoke({ job: name, scheduledTime: new Date().toISOString() }, name, 120_000);

test('every AWS call each function makes, walking every route and job, is granted by its own role', async () => {
  const api = harness.apiAt(gateway.url);
  const admin = { token: 'admin' } as const;
  const storefront = { token: 'storefront' } as const;
  const status = async (answer: Promise<{ status: number }>) => (await answer).status;

  const created = await api('POST', '/checkout', {
    ...storefront,
    body: checkoutBody('iam-1', { timer: true }),
  });
  expect(created.status).toBe(201);
  expect(await status(api('POST', '/checkout', { ...storefront, body: checkoutBody('iam-2') }))).toBe(201);
  expect(await status(api('GET', '/invoices/iam-1', storefront))).toBe(200);
  const secret = created.body.client_secret as string;
  expect(await status(api('GET', '/public/invoices/iam-1', { headers: { 'x-client-secret': secret } }))).toBe(
    200,
  );
  const callback = invoiceCallbackBody('iam-2', 'processing');
  expect(
    await status(api('POST', '/callbacks', { body: callback, headers: signedHeaders(harness, callback) })),
  ).toBe(200);
  expect(await status(api('POST', '/checkout', { ...storefront, body: checkoutBody('iam-3') }))).toBe(201);
  expect(await status(api('POST', '/invoices/iam-3/cancel', admin))).toBe(200);
  expect(await status(api('GET', '/invoices', admin))).toBe(200);

  // Paid through the service, whose callback reaches the in-process stack: then a refund of the order.
  expect((await harness.control('POST', '/invoices/iam-1/pay', { kind: 'full' })).status).toBe(200);
  await waitFor(
    () => api('GET', '/invoices/iam-1', storefront),
    ({ body }) => body.status === 'paid' && body.net_amount !== null,
    30_000,
  );
  const orderRefund = { foreign_id: 'iam-1-r1', debited_amount: '1', address: refundBody('x').address };
  expect(await status(api('POST', '/invoices/iam-1/refunds', { ...admin, body: orderRefund }))).toBe(201);

  for (const route of ['/rates?from=BTC&to=EUR', '/pairs?from=BTC&to=EUR']) {
    expect({ route, status: await status(api('GET', route, storefront)) }).toEqual({ route, status: 200 });
  }
  expect(await runJob('snapshot-balances')).toBeDefined();
  for (const route of [
    '/balances',
    '/balances/history',
    '/refunds',
    '/webhooks/deliveries',
    '/openapi.json',
  ]) {
    expect({ route, status: await status(api('GET', route, admin)) }).toEqual({ route, status: 200 });
  }
  expect(await status(api('GET', '/health', admin))).toBe(200);
  expect(await status(api('POST', '/refunds', { ...admin, body: refundBody('iam-r2') }))).toBe(201);
  expect(await status(api('GET', '/refunds/iam-r2', admin))).toBe(200);
  expect(await status(api('GET', '/transactions?foreign_id=iam-r2', admin))).toBe(200);

  await runJob('webhook-dispatcher');
  const [event] = await waitFor(
    async () => attemptsAtShop,
    (attempts) => attempts.length > 0,
    30_000,
  );
  expect(await status(api('POST', `/webhooks/deliveries/${event.id}/resend`, admin))).toBe(200);
  expect(await status(api('POST', '/webhooks/deliveries/resend-failed', admin))).toBe(200);
  await runJob('webhook-dispatcher');
  await runJob('reconcile');

  // Stores (issue 33): the platform token makes and changes one; its own token then acts for it.
  const platform = { token: 'platform' } as const;
  const made = await api('POST', '/stores', { ...platform, body: { id: 'iam-store', name: 'IAM' } });
  expect(made.status).toBe(201);
  const ownAccount = { api_key: 'key', secret_key: 'secret', base_url: 'https://pay.test' };
  for (const [method, route, body] of [
    ['GET', '/stores', undefined],
    ['GET', '/stores/iam-store', undefined],
    ['PATCH', '/stores/iam-store', { name: 'IAM 2', processing: ownAccount }],
    ['POST', '/stores/iam-store/disable', undefined],
    ['POST', '/stores/iam-store/enable', undefined],
  ] as const) {
    expect({ route, status: await status(api(method, route, { ...platform, body })) }).toEqual({
      route,
      status: 200,
    });
  }
  const storeAdmin = { token: made.body.admin_token as string };
  expect(await status(api('GET', '/balances/history', storeAdmin))).toBe(200);
  const rotated = await api('POST', '/stores/iam-store/tokens/rotate', {
    ...platform,
    body: { grace_seconds: 0 },
  });
  expect(rotated.status).toBe(200);
  expect(await status(api('GET', '/tokens/current', { token: rotated.body.admin_token }))).toBe(200);
  expect(await status(api('GET', '/tokens/current', storeAdmin))).toBe(401);
  // A callback on the store's own URL, signed with its own keys: verified and applied with those alone.
  const ownCallback = invoiceCallbackBody('iam-own-1', 'processing');
  const ownSignature = {
    'X-Processing-Key': ownAccount.api_key,
    'X-Processing-Signature': signBody(ownAccount.secret_key, ownCallback),
  };
  const ownAnswer = await api('POST', '/callbacks/iam-store', { body: ownCallback, headers: ownSignature });
  expect({ status: ownAnswer.status, body: ownAnswer.body }).toEqual({
    status: 200,
    body: { outcome: 'ignored' },
  });

  // The recording works: the checkout's own writes and secret reads are among the calls, under its name.
  expect(calls.filter((call) => call.fn === 'checkout').map((call) => call.action)).toEqual(
    expect.arrayContaining(['dynamodb:PutItem', 'secretsmanager:GetSecretValue']),
  );
  expect(calls.some((call) => call.fn === 'unknown')).toBe(false);
  // The store-callbacks function read the store's secret, and has no name for, nor grant on, the deployment's keys.
  expect(calls).toContainEqual(
    expect.objectContaining({ fn: 'store-callbacks', action: 'secretsmanager:GetSecretValue' }),
  );
  expect(secretReadsOfTemplate('store-callbacks')).toEqual([]);
  const processingKeysId = Object.keys(resources).find(
    (id) =>
      resources[id].Type === 'AWS::SecretsManager::Secret' &&
      resources[id].Properties.Description?.includes('processing keys'),
  )!;
  expect(grantsOf('checkout').has(`secretsmanager:GetSecretValue {"Ref":"${processingKeysId}"}`)).toBe(true);
  expect([...grantsOf('store-callbacks')].filter((grant) => grant.includes(processingKeysId))).toEqual([]);

  const refused = calls
    .filter(
      (call) => !grantsOf(call.fn as FunctionName).has(`${call.action} ${JSON.stringify(call.resource)}`),
    )
    .map((call) => `${call.fn}: ${call.action} on ${JSON.stringify(call.resource)}`);
  expect([...new Set(refused)]).toEqual([]);

  // What the roles allow and no call above used: worth a test, or a grant to drop.
  const used = new Set(calls.map((call) => `${call.fn} ${call.action} ${JSON.stringify(call.resource)}`));
  const unused = names.flatMap((name) =>
    [...grantsOf(name)]
      // The stream's grants are for Lambda's poller, which reads the stream for the function, not the function's calls.
      .filter((grant) => /^(dynamodb|secretsmanager):/.test(grant) && !grant.includes('"StreamArn"'))
      .filter((grant) => !used.has(`${name} ${grant}`))
      .map((grant) => `${name}: ${grant}`),
  );
  output.restore();
  console.log(`Grants no call exercised (${unused.length}):\n${unused.join('\n') || '(none)'}`);
}, 300_000);
