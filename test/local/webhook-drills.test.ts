import { oneAccount } from '../../domain/upstream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';
import { isOpen } from '../../domain/status';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import { RETRY_SCHEDULE, type DispatchOptions } from '../../domain/webhook-deliveries';
import { WebhookDispatcher } from '../../domain/webhook-dispatcher';
import { eventId } from '../../domain/webhooks';
import { webhookPayload } from '../../http/webhook-views';
import {
  bundleFunctions,
  environmentSetBy,
  startLambdaProcess,
  type LambdaProcess,
} from '../../local/lambda-process';
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../local/webhook-receiver';
import { DynamoDeliveryStore } from '../../store/delivery-store';
import { TABLE_SCHEMA } from '../../store/schema';
import { VersionedDynamoStore } from '../../store/versioned-store';
import { HttpWebhookSender } from '../../webhooks/sender';
import { newWebhookSecret } from '../../webhooks/signing';
import { noWake } from '../../webhooks/wake';
import {
  invoiceCallbackBody,
  signedCallbackEvent,
  signedHeaders as callbackHeaders,
} from '../support/callbacks';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';
import { startKillingProxy } from '../support/killing-proxy';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';

// Crash drills that kill processes, the retry wake, and a load of 1,000 orders, on dynalite (it serialises writes to
// an item, as DynamoDB does).
const secret = newWebhookSecret();
let table: DynaliteTable;
let receiver: WebhookReceiver;
/** Answers the attempts the shop held open, when the file ends. */
const hung: Array<() => void> = [];
/** Orders whose events the receiver refuses (500). */
const refusing = new Set<string>();

/** Creates every invoice at once and answers a status at once: what the drills need of the service. */
const service = {
  createInvoice: async (upstreamForeignId: string) => ({
    status: 'pending',
    details: {
      id: Math.floor(Math.random() * 1e9),
      url: `https://pay.example/${upstreamForeignId}`,
      address: 'bc1qdrill',
      tag: null,
      amount: '10.00000000',
      senderCurrency: null,
      senderAmount: null,
      fixedAt: null,
      releaseAt: null,
    },
  }),
} as unknown as ProcessingApi;

beforeAll(async () => {
  table = await startDynaliteTable('drills');
  receiver = await startWebhookReceiver(secret, {
    answer: (event) => (refusing.has(JSON.parse(event.body).data.foreign_id) ? 500 : 200),
  });
});
afterAll(async () => {
  hung.forEach((release) => release());
  await receiver.close();
  await table.close();
});

const invoiceStore = () =>
  new VersionedDynamoStore<InvoiceRecord>(table, DEFAULT_STORE_ID, 'INVOICE', isOpen);
const timing = { now: Date.now, leaseMs: 45_000, waitMs: 5_000, pollMs: 20 };

function dispatcher(
  options: Partial<DispatchOptions> = {},
  sender = new HttpWebhookSender({ url: receiver.url, secrets: async () => [secret], now: Date.now }),
) {
  const store = invoiceStore();
  return new WebhookDispatcher(
    () => ({ invoice: store, refund: store as never }),
    new DynamoDeliveryStore(table, 30),
    { get: async () => sender },
    webhookPayload,
    {
      now: Date.now,
      timeLeftMs: () => 60_000,
      sendTimeoutMs: 2_000,
      leaseMs: 300,
      // As the store here was given (none), as the local stack's: the index lists a record at its first event.
      outboxGraceMs: 0,
      schedule: { ...RETRY_SCHEDULE, scale: 0.001 },
      batch: 100,
      parallel: 16,
      random: Math.random,
      onGaveUp: () => undefined,
      wake: noWake,
      ...options,
    },
  );
}

async function checkout(invoices: InvoiceService, foreignId: string) {
  await invoices.checkout({
    foreignId,
    amount: '10',
    currency: 'EUR',
    title: foreignId,
    email: 'drill@example.com',
    urlSuccess: 'https://shop.example/ok',
    urlFailed: 'https://shop.example/failed',
    timer: false,
  });
}

const paid = (foreignId: string) => ({
  upstreamForeignId: foreignId,
  status: 'confirmed' as const,
  source: 'callback' as const,
});
const idsOf = (type: string, prefix: string) =>
  receiver.received
    .filter((event) => event.type === type && JSON.parse(event.body).data.foreign_id.startsWith(prefix))
    .map((event) => event.id);

test('a run asks to be woken when each retry it put off comes due, to the second', async () => {
  const invoices = new InvoiceService(invoiceStore(), oneAccount(service), timing);
  await checkout(invoices, 'drill-wake-1');
  refusing.add('drill-wake-1');
  const asked: number[] = [];
  // The first retry is due in 30-60 s, well after this run however slow it is: it asks for one wake.
  await dispatcher({
    schedule: { ...RETRY_SCHEDULE, firstMs: 60_000 },
    wake: { at: async (times) => void asked.push(...times) },
  }).run();
  refusing.delete('drill-wake-1');
  const { createdAt } = (await invoiceStore().get('drill-wake-1'))!;
  const retry = await new DynamoDeliveryStore(table, 30).get(
    'default',
    eventId('invoice', 'drill-wake-1', createdAt, 1),
  );
  expect(retry).toMatchObject({ state: 'pending', attempts: 1 });
  expect(asked).toEqual([Math.ceil(retry!.nextAttemptAt / 1000) * 1000]);
});

test('an order removed and made again under its foreign_id gets new event ids: none of its events is lost', async () => {
  const store = invoiceStore();
  const invoices = new InvoiceService(store, oneAccount(service), timing);
  await checkout(invoices, 'drill-again-1');
  await dispatcher().run();
  const first = (await store.get('drill-again-1'))!;
  expect(await store.remove(first.foreignId, first.version)).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 5));
  await checkout(invoices, 'drill-again-1');
  await invoices.applyStatus(paid('drill-again-1'));
  for (let i = 0; i < 20 && idsOf('invoice.paid', 'drill-again-1').length === 0; i++)
    await dispatcher().run();
  const events = receiver.received.filter(
    (event) => JSON.parse(event.body).data.foreign_id === 'drill-again-1',
  );
  expect(events.map(({ type, sequence }) => [type, sequence])).toEqual([
    ['invoice.awaiting_payment', 1],
    ['invoice.awaiting_payment', 1],
    ['invoice.paid', 2],
  ]);
  expect(new Set(events.map(({ id }) => id)).size).toBe(3);
});

/**
 * The drills kill real processes: the dispatcher and the callback function run as bundles in processes of their
 * own (local/lambda-process.ts) against a local stack, and get SIGKILL at the worst moment.
 */
describe('crash drills', () => {
  const outDir = mkdtempSync(path.join(tmpdir(), 'webhook-drills-'));
  let harness: Harness;
  let env: Record<string, string>;
  let bundles: Record<string, string>;
  let shop: WebhookReceiver;
  /** Every attempt that reached the shop, answered or not. */
  const arrivals: ReceivedEvent[] = [];
  /** While set, the shop holds the next attempt open and tells this; the test then kills the sender. */
  let holdNext: ((event: ReceivedEvent) => void) | undefined;
  const children: LambdaProcess[] = [];

  beforeAll(async () => {
    // Events on, but no dispatching in the stack itself: only the processes under test dispatch.
    const started = await environmentSetBy(() => startHarness({ env: { WEBHOOK_EVENTS: 'on' } }));
    harness = started.value;
    shop = await startWebhookReceiver(harness.stack.webhookSecret, {
      answer: (event) => {
        arrivals.push(event);
        const tell = holdNext;
        if (!tell) return 200;
        holdNext = undefined;
        tell(event);
        return new Promise<number>((resolve) => hung.push(() => resolve(503)));
      },
    });
    env = {
      ...started.env,
      WEBHOOK_URL: shop.url,
      // The killed attempt's lease ends soon; a live attempt stays well inside it.
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '6000',
      WEBHOOK_RETRY_SCALE: '0.01',
    };
    const root = path.join(__dirname, '..', '..');
    bundles = await bundleFunctions(
      {
        'webhook-dispatcher': path.join(root, 'functions', 'webhook-dispatcher.ts'),
        callbacks: path.join(root, 'functions', 'callbacks.ts'),
      },
      outDir,
    );
  }, 120_000);
  afterAll(async () => {
    await Promise.all(children.map((child) => child.close()));
    await shop.close();
    await harness.close();
    rmSync(outDir, { recursive: true, force: true });
  });

  async function start(name: string, overrides: Record<string, string> = {}): Promise<LambdaProcess> {
    const child = await startLambdaProcess(bundles[name], { ...env, ...overrides });
    children.push(child);
    return child;
  }

  async function order(foreignId: string) {
    const created = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody(foreignId),
    });
    expect(created.status).toBe(201);
  }

  /** The signed callback that says the order is paid. */
  function paidCallback(foreignId: string) {
    const body = invoiceCallbackBody(foreignId, 'confirmed');
    return { body, headers: { 'content-type': 'application/json', ...callbackHeaders(harness, body) } };
  }

  /** The same callback as API Gateway hands it to the function. */
  function paidCallbackEvent(foreignId: string) {
    return signedCallbackEvent(harness, invoiceCallbackBody(foreignId, 'confirmed'));
  }

  /** What the order's record announces: checkout, then the paid callback and the exception it raises. */
  const EVENTS = ['invoice.awaiting_payment', 'invoice.paid', 'invoice.exception'];

  const deliveredTo = (foreignId: string) =>
    shop.received.filter((event) => JSON.parse(event.body).data.foreign_id === foreignId);

  /** A fresh dispatcher process, run until all the order's events have arrived (generous; ends on success). */
  async function dispatchAll(foreignId: string): Promise<ReceivedEvent[]> {
    const fresh = await start('webhook-dispatcher');
    const deadline = Date.now() + 90_000;
    while (
      new Set(deliveredTo(foreignId).map(({ id }) => id)).size < EVENTS.length &&
      Date.now() < deadline
    ) {
      await fresh.invoke({}, 'webhook-dispatcher');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return deliveredTo(foreignId);
  }

  /** Every event once, in order; an attempt cut off by the kill may come again, but only as the same id. */
  function expectEveryEventOnce(foreignId: string, events: ReceivedEvent[]) {
    expect(events.map(({ type }) => type)).toEqual(EVENTS);
    expect(events.map(({ sequence }) => sequence)).toEqual([1, 2, 3]);
    const ids = new Set(events.map(({ id }) => id));
    expect(ids.size).toBe(EVENTS.length);
    const attempted = arrivals.filter((event) => JSON.parse(event.body).data.foreign_id === foreignId);
    expect(attempted.filter(({ id }) => !ids.has(id))).toEqual([]);
  }

  test('a dispatcher killed while the shop holds its delivery open loses no event', async () => {
    await order('crash-dispatch-1');
    expect((await harness.api('POST', '/callbacks', paidCallback('crash-dispatch-1'))).status).toBe(200);
    const doomed = await start('webhook-dispatcher');
    const arrived = new Promise<ReceivedEvent>((resolve) => (holdNext = resolve));
    const run = doomed.invoke({}, 'webhook-dispatcher');
    const held = await arrived;
    await doomed.kill();
    await expect(run).rejects.toThrow(/exited/);
    expect(held.type).toBe('invoice.awaiting_payment');
    expect(deliveredTo('crash-dispatch-1')).toEqual([]);

    expectEveryEventOnce('crash-dispatch-1', await dispatchAll('crash-dispatch-1'));
  }, 180_000);

  test('a callback killed right after its status write landed loses no event', async () => {
    await order('crash-write-1');
    const proxy = await startKillingProxy(harness.stack.dynamo.url, paidWrite);
    try {
      const doomed = await start('callbacks', { AWS_ENDPOINT_URL_DYNAMODB: proxy.url });
      proxy.onAnswered = () => doomed.kill();
      await expect(doomed.invoke(paidCallbackEvent('crash-write-1'), 'callbacks')).rejects.toThrow(/exited/);
      expect(proxy.answered).toBe(1);
    } finally {
      await proxy.close();
    }
    const view = await harness.api('GET', '/invoices/crash-write-1', { token: 'storefront' });
    expect(view.body.status).toBe('paid');

    expectEveryEventOnce('crash-write-1', await dispatchAll('crash-write-1'));
  }, 180_000);
});

test('1,000 orders paid at once give 1,000 invoice.paid events, each id once after dedupe', async () => {
  const ORDERS = 1_000;
  const invoices = new InvoiceService(invoiceStore(), oneAccount(service), timing);
  const ids = Array.from({ length: ORDERS }, (_, index) => `drill-load-${index}`);
  const started = Date.now();
  for (let i = 0; i < ORDERS; i += 50)
    await Promise.all(ids.slice(i, i + 50).map((id) => checkout(invoices, id)));
  for (let i = 0; i < ORDERS; i += 100)
    await Promise.all(ids.slice(i, i + 100).map((id) => invoices.applyStatus(paid(id))));
  const paidAt = Date.now();
  // Two dispatchers at once, as overlapping runs would be.
  for (let i = 0; i < 50 && new Set(idsOf('invoice.paid', 'drill-load-')).size < ORDERS; i++) {
    await Promise.all([dispatcher().run(), dispatcher().run()]);
  }
  const delivered = idsOf('invoice.paid', 'drill-load-');
  console.log(
    `1,000 orders: checkouts and payments ${paidAt - started} ms, then every invoice.paid delivered in ${Date.now() - paidAt} ms (${delivered.length} received, ${new Set(delivered).size} distinct)`,
  );
  expect(new Set(delivered).size).toBe(ORDERS);
  // Each order's events first arrived in seq order, though the two runs may both have sent one.
  const firstArrivals = new Map<string, number[]>();
  for (const event of receiver.received) {
    const foreignId = JSON.parse(event.body).data.foreign_id as string;
    if (!foreignId.startsWith('drill-load-')) continue;
    const seqs = firstArrivals.get(foreignId) ?? [];
    if (!seqs.includes(event.sequence)) seqs.push(event.sequence);
    firstArrivals.set(foreignId, seqs);
  }
  expect(firstArrivals.size).toBe(ORDERS);
  expect([...firstArrivals].filter(([, seqs]) => seqs.join() !== '1,2')).toEqual([]);
  // About 30 s alone on a 2-core machine; the whole suite beside it can make it several times slower.
}, 400_000);

/** The UpdateItem that writes an invoice as paid: the status update the drill kills after. */
function paidWrite(target: string, body: string): boolean {
  if (target !== 'DynamoDB_20120810.UpdateItem') return false;
  const request = JSON.parse(body) as {
    Key: Record<string, { S?: string }>;
    ExpressionAttributeValues?: Record<string, { S?: string }>;
  };
  const data = request.ExpressionAttributeValues?.[':data']?.S;
  const isInvoice = request.Key[TABLE_SCHEMA.partitionKey]?.S?.startsWith('INVOICE#') ?? false;
  return isInvoice && data !== undefined && (JSON.parse(data) as InvoiceRecord).status === 'confirmed';
}
