// A callback function killed mid-way, as a crash would end it, while a copy of its delivery arrives: the copy is
// answered 200 only once the news is in the record (issue 29).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import {
  bundleFunctions,
  environmentSetBy,
  startLambdaProcess,
  type LambdaProcess,
} from '../../local/lambda-process';
import { TABLE_SCHEMA } from '../../store/schema';
import { invoiceCallbackBody, postCallback, signedCallbackEvent, signedHeaders } from '../support/callbacks';
import { startKillingProxy } from '../support/killing-proxy';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';

const outDir = mkdtempSync(path.join(tmpdir(), 'callback-drills-'));
let harness: Harness;
let env: Record<string, string>;
let bundle: string;
const children: LambdaProcess[] = [];

beforeAll(async () => {
  const started = await environmentSetBy(() => startHarness());
  harness = started.value;
  env = started.env;
  // Only the callbacks the test sends reach the plugin.
  await harness.control('POST', '/callbacks', { url: null });
  const root = path.join(__dirname, '..', '..');
  ({ callbacks: bundle } = await bundleFunctions(
    { callbacks: path.join(root, 'functions', 'callbacks.ts') },
    outDir,
  ));
}, 120_000);
afterAll(async () => {
  await Promise.all(children.map((child) => child.close()));
  await harness?.close();
  rmSync(outDir, { recursive: true, force: true });
});

/** The PutItem that claims a callback's receipt: the first copy dies right after it lands, before any news. */
function receiptClaim(target: string, body: string): boolean {
  if (target !== 'DynamoDB_20120810.PutItem') return false;
  const request = JSON.parse(body) as { Item: Record<string, { S?: string }> };
  return request.Item[TABLE_SCHEMA.partitionKey]?.S?.startsWith('CALLBACK#') ?? false;
}

test('a copy that arrives while a dead copy holds the receipt applies the news before it answers 200', async () => {
  const foreignId = 'crash-receipt-1';
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId),
  });
  expect(created.status).toBe(201);
  const body = invoiceCallbackBody(foreignId, 'confirmed');

  const proxy = await startKillingProxy(harness.stack.dynamo.url, receiptClaim);
  try {
    const doomed = await startLambdaProcess(bundle, { ...env, AWS_ENDPOINT_URL_DYNAMODB: proxy.url });
    children.push(doomed);
    proxy.onAnswered = () => void doomed.kill();
    const event = signedCallbackEvent(harness, body);
    await expect(doomed.invoke(event, 'callbacks')).rejects.toThrow(/exited/);
    expect(proxy.answered).toBe(1);
  } finally {
    await proxy.close();
  }
  // The dead copy's receipt is still pending, its lease far from over: the news is not in the record.
  expect((await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body.status).toBe(
    'awaiting_payment',
  );

  const copy = await postCallback(harness, body, signedHeaders(harness, body));

  expect(copy.status).toBe(200);
  expect(copy.body.outcome).toBe('applied');
  const view = (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
  expect(view).toMatchObject({ status: 'paid', net_amount: '25.50000000' });
  // Once applied, a further copy is a duplicate.
  expect((await postCallback(harness, body, signedHeaders(harness, body))).body.outcome).toBe('duplicate');
}, 180_000);
