// Two stores in one table (issue 33): each store's items under its own keys, its lists from its own partitions; the
// default store's keys exactly as a deployment from before stores wrote them.
import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import type { InvoiceRecord, RefundRecord } from '../../domain/model';
import { isOpen } from '../../domain/status';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import {
  createPluginTable,
  LOCAL_CREDENTIALS,
  startLocalDynamo,
  type LocalDynamo,
} from '../../local/dynamodb';
import { DynamoRecordList } from '../../store/record-list';
import { DynamoSnapshotStore } from '../../store/snapshot-store';
import { keyOwner, scopedKey } from '../../store/store-scope';
import type { Table } from '../../store/table';
import { VersionedDynamoStore } from '../../store/versioned-store';

const STORE_B = 'shop-b';

function invoice(foreignId: string, title: string, createdAt: number): InvoiceRecord {
  return {
    foreignId,
    version: 1,
    phase: 'sending',
    request: {
      foreignId,
      amount: '25.50000000',
      currency: 'EUR',
      title,
      email: 'customer@example.com',
      urlSuccess: 'https://shop.example/ok',
      urlFailed: 'https://shop.example/failed',
      timer: true,
    },
    attempt: 1,
    claimedAt: createdAt,
    status: null,
    invoice: null,
    payment: null,
    error: null,
    cancelled: false,
    history: [],
    createdAt,
    updatedAt: createdAt,
  };
}

let dynamo: LocalDynamo;
let client: DynamoDBClient;
let table: Table;
let invoicesA: VersionedDynamoStore<InvoiceRecord>;
let invoicesB: VersionedDynamoStore<InvoiceRecord>;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  client = new DynamoDBClient({ endpoint: dynamo.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
});
afterAll(async () => {
  client?.destroy();
  await dynamo?.close();
});
beforeEach(async () => {
  const name = `scope-${randomUUID()}`;
  await createPluginTable(dynamo.url, name);
  table = { client, name };
  invoicesA = new VersionedDynamoStore<InvoiceRecord>(table, DEFAULT_STORE_ID, 'INVOICE', isOpen);
  invoicesB = invoicesA.forStore(STORE_B);
});

async function scan(): Promise<Array<Record<string, AttributeValue>>> {
  const { Items: items = [] } = await client.send(new ScanCommand({ TableName: table.name }));
  return items;
}

test('scopedKey leaves the default store alone and prefixes another; keyOwner reads both back', () => {
  expect(scopedKey('default', 'INVOICE#order-1')).toBe('INVOICE#order-1');
  expect(scopedKey(STORE_B, 'INVOICE#order-1')).toBe('S#shop-b#INVOICE#order-1');
  expect(keyOwner('INVOICE#order-1')).toEqual({ storeId: 'default', key: 'INVOICE#order-1' });
  expect(keyOwner('S#shop-b#INVOICE#S#x')).toEqual({ storeId: STORE_B, key: 'INVOICE#S#x' });
});

test('the same foreign_id in two stores is two items; the default store keeps its exact keys', async () => {
  expect(await invoicesA.create(invoice('order-1', 'A', 1_000))).toBe(true);
  expect(await invoicesB.create(invoice('order-1', 'B', 2_000))).toBe(true);
  // Unique per store: the second create in the same store is refused.
  expect(await invoicesB.create(invoice('order-1', 'B again', 3_000))).toBe(false);

  expect((await invoicesA.get('order-1'))?.request.title).toBe('A');
  expect((await invoicesB.get('order-1'))?.request.title).toBe('B');
  const items = await scan();
  expect(items).toHaveLength(2);
  const a = items.find((item) => item.pk.S === 'INVOICE#order-1');
  const b = items.find((item) => item.pk.S === 'S#shop-b#INVOICE#order-1');
  // Each store's record in a shard of the one open list of its kind.
  expect(a).toMatchObject({
    sk: { S: 'INVOICE' },
    gsi1pk: { S: expect.stringMatching(/^OPEN#INVOICE(#\d+)?$/) },
  });
  expect(a?.gsi2pk.S).toMatch(/^INVOICE#\d$/);
  expect(a?.store).toBeUndefined();
  expect(b).toMatchObject({
    sk: { S: 'INVOICE' },
    gsi1pk: { S: expect.stringMatching(/^OPEN#INVOICE(#\d+)?$/) },
    store: { S: STORE_B },
  });
  expect(b?.gsi2pk.S).toMatch(/^S#shop-b#INVOICE#\d$/);
});

test("an update or removal in one store never touches the other's record of the same foreign_id", async () => {
  const first = invoice('order-2', 'A', 1_000);
  await invoicesA.create(first);
  await invoicesB.create(invoice('order-2', 'B', 1_000));

  expect(await invoicesB.update({ ...first, version: 2, error: 'B changed' }, 1)).toBe(true);
  expect(await invoicesA.get('order-2')).toMatchObject({ version: 1, error: null });
  expect(await invoicesB.remove('order-2', 2)).toBe(true);
  expect(await invoicesB.get('order-2')).toBeUndefined();
  expect(await invoicesA.get('order-2')).toMatchObject({ version: 1 });
});

test('lists never mix: each store pages through its own records only', async () => {
  for (let i = 0; i < 6; i++) {
    await invoicesA.create(invoice(`order-${i}`, 'A', 1_000 + i));
    await invoicesB.create(invoice(`order-${i}`, 'B', 1_000 + i));
  }
  await invoicesB.create(invoice('only-b', 'B', 5_000));
  const listA = new DynamoRecordList<InvoiceRecord>(table, DEFAULT_STORE_ID, 'INVOICE');
  const listB = listA.forStore(STORE_B);

  const pageA = await listA.listNewest({ limit: 10 });
  expect(pageA.more).toBe(false);
  expect(pageA.records.map((record) => record.request.title)).toEqual(Array(6).fill('A'));
  const firstB = await listB.listNewest({ limit: 4 });
  expect(firstB.records.map((record) => record.foreignId)).toEqual([
    'only-b',
    'order-5',
    'order-4',
    'order-3',
  ]);
  const last = firstB.records.at(-1)!;
  const restB = await listB.listNewest({ limit: 10, after: last });
  expect(restB.records.map((record) => record.foreignId)).toEqual(['order-2', 'order-1', 'order-0']);
  expect([...firstB.records, ...restB.records].every((record) => record.request.title === 'B')).toBe(true);
});

test("the open-items index is one queue for all stores, each record listed with its store's id", async () => {
  await invoicesA.create(invoice('order-1', 'A', 1_000));
  await invoicesB.create(invoice('order-1', 'B', 2_000));

  const due = await invoicesA.listOpen(10);
  expect(due.map(({ storeId, record }) => [storeId, record.foreignId, record.request.title])).toEqual([
    ['default', 'order-1', 'A'],
    [STORE_B, 'order-1', 'B'],
  ]);
  expect((await invoicesB.listOpen(10)).length).toBe(2);
});

test('refunds and snapshots are kept per store too', async () => {
  const refundsA = new VersionedDynamoStore<RefundRecord>(table, DEFAULT_STORE_ID, 'REFUND', isOpen);
  const refund = { foreignId: 'refund-1', version: 1, phase: 'sending' } as RefundRecord;
  await refundsA.create({ ...refund, createdAt: 1, updatedAt: 1, claimedAt: 1 } as RefundRecord);
  expect(await refundsA.forStore(STORE_B).get('refund-1')).toBeUndefined();

  const snapshotsA = new DynamoSnapshotStore(table, DEFAULT_STORE_ID, 90);
  const snapshotsB = snapshotsA.forStore(STORE_B);
  await snapshotsA.put({ takenAt: 1_000, source: 'scheduled', balances: [] });
  expect(await snapshotsB.latest()).toBeUndefined();
  expect(await snapshotsB.since(0, 10)).toEqual([]);
  expect(await snapshotsB.claimLiveSlot(2_000, 60_000)).toBe(true);
  expect(await snapshotsA.claimLiveSlot(2_000, 60_000)).toBe(true);

  const keys = (await scan()).map((item) => item.pk.S).sort();
  expect(keys).toEqual(['BALANCES', 'REFUND#refund-1', 'S#shop-b#BALANCES_LIVE', 'BALANCES_LIVE'].sort());
});
