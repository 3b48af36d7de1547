// Every function bundled with the stack's esbuild options (SDK trimmed by lib/bundling.ts), run in a fresh process
// with only the local stack's environment, against that stack: the environment's credentials, DynamoDB, Secrets
// Manager and the service all work. (test/lib/bundling.test.ts runs the CDK's own bundles under a hung service.)
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { routes, scheduledJobs, type FunctionName } from '../../lib/routes';
import { httpApiEvent } from '../../local/lambda-event';
import { bundleFunctions, environmentSetBy, startLambdaProcess } from '../../local/lambda-process';
import { invoiceCallbackBody, signedHeaders } from '../support/callbacks';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';

const outDir = mkdtempSync(path.join(tmpdir(), 'trimmed-functions-'));
let harness: Harness;
let bundles: Record<string, string>;
let env: Record<string, string>;

beforeAll(async () => {
  const started = await environmentSetBy(() => startHarness());
  harness = started.value;
  // What lib/plugin-function.ts adds to every function's environment.
  env = {
    ...started.env,
    NODE_OPTIONS: '--enable-source-maps',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
  };
  const names = [...routes.map((route) => route.name), ...scheduledJobs];
  const root = path.join(__dirname, '..', '..');
  bundles = await bundleFunctions(
    Object.fromEntries(names.map((name) => [name, path.join(root, 'functions', `${name}.ts`)])),
    outDir,
  );
}, 60_000);
afterAll(async () => {
  await harness.close();
  rmSync(outDir, { recursive: true, force: true });
});

interface Call {
  method: 'GET' | 'POST';
  route: string;
  path: string;
  token?: 'storefront' | 'admin';
  body?: string;
  headers?: Record<string, string>;
  pathParameters?: Record<string, string>;
}

/** Invokes one function in its own fresh process, as a new execution environment would. */
async function invoke(name: FunctionName, event: unknown): Promise<unknown> {
  const fresh = await startLambdaProcess(bundles[name], env);
  try {
    return (await fresh.invoke(event, name)).result;
  } finally {
    await fresh.close();
  }
}

async function status(name: FunctionName, call: Call): Promise<number> {
  const [pathOnly, query] = call.path.split('?');
  const token =
    call.token && (call.token === 'admin' ? harness.stack.adminToken : harness.stack.storefrontToken);
  const event = httpApiEvent({
    method: call.method,
    routeKey: `${call.method} ${call.route}`,
    path: pathOnly,
    query,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...call.headers,
    },
    pathParameters: call.pathParameters,
    body: call.body === undefined ? undefined : Buffer.from(call.body),
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  });
  const result = (await invoke(name, event)) as APIGatewayProxyStructuredResultV2;
  return result.statusCode!;
}

const scheduled = (job: FunctionName) => ({ job, scheduledTime: new Date().toISOString() });

test('the checkout, poll, callback and cancel functions', async () => {
  const checkout = (foreignId: string) =>
    status('checkout', {
      method: 'POST',
      route: '/checkout',
      path: '/checkout',
      token: 'storefront',
      body: JSON.stringify(checkoutBody(foreignId)),
    });
  expect(await checkout('trimmed-1')).toBe(201);
  expect(await checkout('trimmed-2')).toBe(201);
  const onInvoice = (method: Call['method'], path: string, token: Call['token'], foreignId: string) => ({
    method,
    route: path.replace(foreignId, '{foreign_id}'),
    path,
    token,
    pathParameters: { foreign_id: foreignId },
  });
  expect(
    await status('get-invoice', onInvoice('GET', '/invoices/trimmed-1', 'storefront', 'trimmed-1')),
  ).toBe(200);
  const callback = invoiceCallbackBody('trimmed-1', 'processing');
  expect(
    await status('callbacks', {
      method: 'POST',
      route: '/callbacks',
      path: '/callbacks',
      body: callback,
      headers: signedHeaders(harness, callback),
    }),
  ).toBe(200);
  expect(
    await status('cancel-invoice', onInvoice('POST', '/invoices/trimmed-2/cancel', 'admin', 'trimmed-2')),
  ).toBe(200);
}, 60_000);

test('the market, balance, refund and lookup functions, and both scheduled jobs', async () => {
  for (const name of ['rates', 'pairs'] as const) {
    const call = {
      method: 'GET',
      route: `/${name}`,
      path: `/${name}?from=BTC&to=EUR`,
      token: 'storefront',
    } as const;
    expect({ name, status: await status(name, call) }).toEqual({ name, status: 200 });
  }
  const options = {
    method: 'GET',
    route: '/checkout/options',
    path: '/checkout/options?amount=10&currency=EUR',
    token: 'storefront',
  } as const;
  expect(await status('checkout-options', options)).toBe(200);
  expect(await invoke('snapshot-balances', scheduled('snapshot-balances'))).toMatchObject({
    currencies: expect.any(Number),
  });
  const admin = (route: string, pathWithQuery = route) =>
    ({ method: 'GET', route, path: pathWithQuery, token: 'admin' }) as const;
  expect(await status('get-balances', admin('/balances'))).toBe(200);
  expect(await status('balance-history', admin('/balances/history'))).toBe(200);
  expect(
    await status('create-refund', {
      method: 'POST',
      route: '/refunds',
      path: '/refunds',
      token: 'admin',
      body: JSON.stringify(refundBody('trimmed-refund')),
    }),
  ).toBe(201);
  expect(
    await status('get-refund', {
      ...admin('/refunds/{foreign_id}', '/refunds/trimmed-refund'),
      pathParameters: { foreign_id: 'trimmed-refund' },
    }),
  ).toBe(200);
  expect(
    await status('lookup-transaction', admin('/transactions', '/transactions?foreign_id=trimmed-refund')),
  ).toBe(200);
  expect(await invoke('reconcile', scheduled('reconcile'))).toMatchObject({ failures: 0 });
}, 60_000);
