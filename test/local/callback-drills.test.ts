// A callback function killed mid-way, as a crash would end it: unanswered, the delivery is sent again, and the copy
// is answered 200 only once the news is in the record, applied once (issues 29, 30).
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

/** The first copy dies right after DynamoDB answers this call on the order's record: its read, or its write. */
function recordCall(action: 'GetItem' | 'UpdateItem', foreignId: string) {
  return (target: string, body: string): boolean => {
    if (target !== `DynamoDB_20120810.${action}`) return false;
    const request = JSON.parse(body) as { Key: Record<string, { S?: string }> };
    return request.Key[TABLE_SCHEMA.partitionKey]?.S === `INVOICE#${foreignId}`;
  };
}

test.each([
  ['read, before its write', 'GetItem', 'awaiting_payment', 'applied'],
  ['write, with the answer lost', 'UpdateItem', 'paid', 'duplicate'],
] as const)(
  'a copy that dies right after its %s: the retry answers 200 with the news in the record once',
  async (_when, action, statusAfterCrash, retryOutcome) => {
    const foreignId = `crash-after-${action}`;
    const created = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody(foreignId),
    });
    expect(created.status).toBe(201);
    const body = invoiceCallbackBody(foreignId, 'confirmed');

    const proxy = await startKillingProxy(harness.stack.dynamo.url, recordCall(action, foreignId));
    try {
      const doomed = await startLambdaProcess(bundle, { ...env, AWS_ENDPOINT_URL_DYNAMODB: proxy.url });
      children.push(doomed);
      proxy.onAnswered = () => doomed.kill();
      const event = signedCallbackEvent(harness, body);
      await expect(doomed.invoke(event, 'callbacks')).rejects.toThrow(/exited/);
      expect(proxy.answered).toBe(1);
    } finally {
      await proxy.close();
    }
    const poll = async () =>
      (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
    expect((await poll()).status).toBe(statusAfterCrash);

    // The dead copy answered nothing, so the payment service sends the delivery again.
    const copy = await postCallback(harness, body, signedHeaders(harness, body));

    expect(copy.status).toBe(200);
    expect(copy.body.outcome).toBe(retryOutcome);
    const view = await poll();
    expect(view).toMatchObject({ status: 'paid', net_amount: '25.50000000' });
    expect(view.history.map((change: { service_status: string }) => change.service_status)).toEqual([
      'pending',
      'confirmed',
    ]);
    // Once applied, a further copy is a duplicate and changes nothing.
    expect((await postCallback(harness, body, signedHeaders(harness, body))).body.outcome).toBe('duplicate');
    expect(await poll()).toEqual(view);
  },
  180_000,
);
