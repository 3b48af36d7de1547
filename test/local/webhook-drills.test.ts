import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { InvoiceService } from '../../domain/invoices';
import type { Delivery, InvoiceRecord } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';
import { isOpen } from '../../domain/status';
import { RETRY_SCHEDULE, WebhookDispatcher, type DispatchOptions } from '../../domain/webhooks';
import { webhookPayload } from '../../http/webhook-views';
import {
  createPluginTable,
  LOCAL_CREDENTIALS,
  startLocalDynamo,
  type LocalDynamo,
} from '../../local/dynamodb';
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { DynamoDeliveryStore } from '../../store/delivery-store';
import type { Table } from '../../store/table';
import { VersionedDynamoStore } from '../../store/versioned-store';
import { HttpWebhookSender } from '../../webhooks/sender';
import { newWebhookSecret } from '../../webhooks/signing';

// Crash drills and a load of 1,000 orders, on dynalite (it serialises writes to an item, as DynamoDB does).
const secret = newWebhookSecret();
let dynamo: LocalDynamo;
let table: Table;
let receiver: WebhookReceiver;
/** Releases the attempts that "died", when the file ends. */
const hung: Array<() => void> = [];

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
  dynamo = await startLocalDynamo();
  await createPluginTable(dynamo.url, 'drills');
  table = {
    name: 'drills',
    client: new DynamoDBClient({ endpoint: dynamo.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS }),
  };
  receiver = await startWebhookReceiver(secret, {
    answer: () => 200,
  });
});
afterAll(async () => {
  hung.forEach((release) => release());
  table.client.destroy();
  await receiver.close();
  await dynamo.close();
});

const invoiceStore = () => new VersionedDynamoStore<InvoiceRecord>(table, 'INVOICE', isOpen);
const timing = { now: Date.now, leaseMs: 45_000, waitMs: 5_000, pollMs: 20 };

function dispatcher(
  options: Partial<DispatchOptions> = {},
  sender = new HttpWebhookSender({ url: receiver.url, secrets: async () => [secret], now: Date.now }),
) {
  const store = invoiceStore();
  return new WebhookDispatcher(
    { invoice: store, refund: store as never },
    new DynamoDeliveryStore(table, 30),
    sender,
    webhookPayload,
    {
      now: Date.now,
      timeLeftMs: () => 60_000,
      sendTimeoutMs: 2_000,
      leaseMs: 300,
      schedule: { ...RETRY_SCHEDULE, scale: 0.001 },
      batch: 100,
      parallel: 16,
      random: Math.random,
      onGaveUp: () => undefined,
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

test('a status update that dies right after its write loses no event: the outbox went in with it', async () => {
  const store = invoiceStore();
  // The write lands; then the process "dies" before it can do anything else.
  const dying = Object.assign(Object.create(store), {
    update: async (record: InvoiceRecord, expected: number) => {
      const written = await store.update(record, expected);
      if (written && record.status === 'confirmed') throw new Error('killed after the write');
      return written;
    },
  });
  await checkout(new InvoiceService(store, service, timing), 'drill-write-1');
  await expect(new InvoiceService(dying, service, timing).applyStatus(paid('drill-write-1'))).rejects.toThrow(
    'killed',
  );
  await dispatcher().run();
  expect(idsOf('invoice.paid', 'drill-write-1')).toHaveLength(1);
  expect(idsOf('invoice.awaiting_payment', 'drill-write-1')).toHaveLength(1);
});

test('a dispatcher that dies mid-delivery loses no event: after its lease another delivers the same id', async () => {
  const invoices = new InvoiceService(invoiceStore(), service, timing);
  await checkout(invoices, 'drill-dispatch-1');
  await invoices.applyStatus(paid('drill-dispatch-1'));
  const before = receiver.received.length;
  // The first run claims the delivery and never comes back from its attempt, as if its process were killed.
  const dead = {
    send: (delivery: Pick<Delivery, 'id' | 'body'>) =>
      new Promise<never>((_, reject) => hung.push(() => reject(new Error(`dead ${delivery.id}`)))),
  };
  void dispatcher({}, dead as never)
    .run()
    .catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, 100));
  expect(receiver.received.length).toBe(before);
  // Generous: the lease (300 ms) is long over when the second run looks.
  let report;
  for (let i = 0; i < 100 && idsOf('invoice.paid', 'drill-dispatch-1').length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    report = await dispatcher().run();
  }
  expect(report).toBeDefined();
  const ids = receiver.received.filter(
    (event) => JSON.parse(event.body).data.foreign_id === 'drill-dispatch-1',
  );
  expect(ids.map((event) => event.type)).toEqual(['invoice.awaiting_payment', 'invoice.paid']);
});

test('1,000 orders paid at once give 1,000 invoice.paid events, each id once after dedupe', async () => {
  const ORDERS = 1_000;
  const invoices = new InvoiceService(invoiceStore(), service, timing);
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
  // About 30 s alone on a 2-core machine; the whole suite beside it can make it several times slower.
}, 400_000);
