// The open lists over their shards: records spread over them, the sweep reads them all in due order, and records
// listed before shards (one partition, `OPEN#<KIND>`) are still found.
import { ScanCommand } from '@aws-sdk/client-dynamodb';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import { OPEN_ITEMS_INDEX } from '../../store/schema';
import type { Table } from '../../store/table';
import { VersionedDynamoStore } from '../../store/versioned-store';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';

let table: DynaliteTable;
beforeAll(async () => {
  table = await startDynaliteTable('open-shards');
}, 60_000);
afterAll(() => table.close());

/** What the store keys a record by; the sweep is due to look at one when it was last updated. */
interface Open {
  foreignId: string;
  version: number;
  createdAt: number;
  updatedAt: number;
}

const record = (foreignId: string, at: number): Open => ({
  foreignId,
  version: 1,
  createdAt: at,
  updatedAt: at,
});

const storeOn = (shards: Table['shards']) =>
  new VersionedDynamoStore<Open>(
    { client: table.client, name: table.name, shards },
    DEFAULT_STORE_ID,
    'INVOICE',
    () => true,
    (open) => open.updatedAt,
  );

const partitions = async (): Promise<string[]> => {
  const { Items: items = [] } = await table.client.send(new ScanCommand({ TableName: table.name }));
  return [...new Set(items.map((item) => item[OPEN_ITEMS_INDEX.partitionKey]?.S ?? ''))].sort();
};

const ids = (listed: Array<{ record: { foreignId: string } }>) =>
  listed.map(({ record }) => record.foreignId);

test('records listed before shards, under OPEN#INVOICE alone, are found with the ones on every shard after', async () => {
  const before = storeOn({ open: 1, due: 4 });
  for (let i = 0; i < 5; i++) {
    expect(await before.create(record(`old-${i}`, 1_000 + i))).toBe(true);
  }
  expect(await partitions()).toEqual(['OPEN#INVOICE']);

  const sharded = storeOn({ open: 8, due: 4 });
  for (let i = 0; i < 30; i++) {
    expect(await sharded.create(record(`new-${i}`, 2_000 + i))).toBe(true);
  }
  const used = await partitions();
  expect(used.length).toBeGreaterThan(4);
  for (const partition of used) expect(partition).toMatch(/^OPEN#INVOICE(#[1-7])?$/);

  // Every shard read, merged longest due first, and cut at the limit.
  const all = [...Array(5).keys()]
    .map((i) => `old-${i}`)
    .concat([...Array(30).keys()].map((i) => `new-${i}`));
  expect(ids(await sharded.listOpen(100))).toEqual(all);
  expect(ids(await sharded.listOpen(7))).toEqual(all.slice(0, 7));
  expect(ids(await sharded.listOpen(100, 2_004))).toEqual(all.slice(0, 10));
});
