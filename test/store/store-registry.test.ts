// The store registry (store/store-registry.ts) on dynalite, through the real SDK client.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { StoreRecord } from '../../domain/stores';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';
import { DynamoStoreRegistry } from '../../store/store-registry';

let table: DynaliteTable;
let registry: DynamoStoreRegistry;
let client: DynamoDBClient;
const TABLE = 'store-registry-test';

beforeAll(async () => {
  table = await startDynaliteTable(TABLE);
  client = table.client;
  registry = new DynamoStoreRegistry({ client, name: TABLE });
});
afterAll(() => table.close());

const HASH = (n: number) => n.toString(16).padStart(64, '0');

function store(id: string, createdAt: number, overrides: Partial<StoreRecord> = {}): StoreRecord {
  return {
    id,
    name: `Store ${id}`,
    status: 'active',
    account: 'shared',
    createdAt,
    updatedAt: createdAt,
    version: 1,
    tokens: { storefront: HASH(createdAt * 2), admin: HASH(createdAt * 2 + 1) },
    ...overrides,
  };
}

test('a store is created once: a second create of its id is refused and changes nothing', async () => {
  const first = store('shop-a', 1_000, { webhookUrl: 'https://a.test/hooks' });
  expect(await registry.create(first)).toBe(true);
  expect(await registry.create(store('shop-a', 2_000, { name: 'Another' }))).toBe(false);
  expect(await registry.get('shop-a')).toEqual(first);
  expect(await registry.get('shop-none')).toBeUndefined();
});

test('an update writes over the version before it only; a stale one is refused', async () => {
  const own = store('shop-b', 1_100, { account: 'own', baseUrl: 'https://pay.test' });
  await registry.create(own);
  const rotated = {
    ...own,
    version: 2,
    updatedAt: 1_200,
    tokens: { storefront: HASH(7), admin: HASH(8) },
    previousTokens: { ...own.tokens, expiresAt: 5_000 },
    previousWebhookSecretExpiresAt: 6_000,
  };
  expect(await registry.update(rotated)).toBe(true);
  expect(await registry.update({ ...own, version: 2, name: 'Stale' })).toBe(false);
  expect(await registry.get('shop-b')).toEqual(rotated);
  // Concurrent changes over one version: exactly one is written (dynalite serialises writes to one item).
  const racers = Array.from({ length: 10 }, (_, i) => ({ ...rotated, version: 3, name: `Racer ${i}` }));
  const written = await Promise.all(racers.map((racer) => registry.update(racer)));
  expect(written.filter(Boolean)).toHaveLength(1);
});

test("a token's digest names its store and scope; a digest is recorded once", async () => {
  await registry.addToken({ hash: HASH(99), storeId: 'shop-a', scope: 'admin' });
  expect(await registry.tokenOwner(HASH(99))).toEqual({ hash: HASH(99), storeId: 'shop-a', scope: 'admin' });
  expect(await registry.tokenOwner(HASH(98))).toBeUndefined();
  await expect(registry.addToken({ hash: HASH(99), storeId: 'shop-b', scope: 'admin' })).rejects.toThrow(
    'already in the registry',
  );
});

test('the list walks the stores oldest first, a page at a time, never skipping or repeating one', async () => {
  for (let i = 0; i < 5; i++) await registry.create(store(`list-${i}`, 10_000 + i));
  const seen: string[] = [];
  let after: { createdAt: number; id: string } | undefined;
  for (;;) {
    const page = await registry.list({ limit: 2, after });
    seen.push(...page.records.map((record) => record.id));
    const last = page.records.at(-1);
    if (!page.more || !last) break;
    after = { createdAt: last.createdAt, id: last.id };
  }
  expect(seen).toEqual(['shop-a', 'shop-b', 'list-0', 'list-1', 'list-2', 'list-3', 'list-4']);
});

test('an unfinished store and a lease round-trip; the list shows the store once its create finishes', async () => {
  const unfinished = store('shop-u', 20_000, {
    unfinished: { request: `${'a'.repeat(32)}:${HASH(5)}`, until: 80_000, version: 1 },
  });
  expect(await registry.create(unfinished)).toBe(true);
  expect(await registry.get('shop-u')).toEqual(unfinished);
  const listed = async () => (await registry.list({ limit: 100 })).records.map((record) => record.id);
  expect(await listed()).not.toContain('shop-u');
  const { unfinished: _done, ...rest } = unfinished;
  const finished = { ...rest, version: 2 };
  expect(await registry.update(finished)).toBe(true);
  expect(await listed()).toContain('shop-u');
  const leased = { ...finished, version: 3, keysChange: { until: 90_000, version: 3 } };
  expect(await registry.update(leased)).toBe(true);
  expect(await registry.get('shop-u')).toEqual(leased);
  const { keysChange: _ended, ...done } = leased;
  expect(await registry.update({ ...done, version: 4 })).toBe(true);
  expect(await registry.get('shop-u')).toEqual({ ...done, version: 4 });
});
