// The warm container's cache of the store registry (store/store-cache.ts), over the registry in memory.
import type { StoreRecord } from '../../domain/stores';
import { CachedStoreRegistry } from '../../store/store-cache';
import { MemoryStoreRegistry } from '../support/memory-stores';

const record = (overrides: Partial<StoreRecord> = {}): StoreRecord => ({
  id: 'shop-a',
  name: 'A',
  status: 'active',
  account: 'shared',
  createdAt: 1,
  updatedAt: 1,
  version: 1,
  tokens: { storefront: 'aa', admin: 'bb' },
  ...overrides,
});

function setup(ttlMs = 60_000, maxEntries = 1_000) {
  let now = 0;
  const registry = new MemoryStoreRegistry();
  registry.stores.set('shop-a', record());
  registry.owners.set('aa', { hash: 'aa', storeId: 'shop-a', scope: 'storefront' });
  const cached = new CachedStoreRegistry(registry, ttlMs, () => now, maxEntries);
  return { registry, cached, advance: (ms: number) => (now += ms) };
}

test('a token owner and a store are read once per period, then again', async () => {
  const { registry, cached, advance } = setup();
  for (let i = 0; i < 3; i++) {
    expect(await cached.tokenOwner('aa')).toMatchObject({ storeId: 'shop-a' });
    expect(await cached.get('shop-a')).toMatchObject({ status: 'active' });
  }
  expect(registry.reads).toEqual({ store: 1, token: 1 });
  advance(59_999);
  await cached.get('shop-a');
  expect(registry.reads.store).toBe(1);
  advance(1);
  await cached.get('shop-a');
  expect(registry.reads.store).toBe(2);
});

test('a token no store holds is remembered too: a flood of it costs one read a period', async () => {
  const { registry, cached } = setup();
  await Promise.all(Array.from({ length: 50 }, () => cached.tokenOwner('unknown')));
  expect(await cached.tokenOwner('unknown')).toBeUndefined();
  expect(registry.reads.token).toBe(1);
});

test('concurrent readers of one store share one read', async () => {
  const { registry, cached } = setup();
  await Promise.all(Array.from({ length: 20 }, () => cached.get('shop-a')));
  expect(registry.reads.store).toBe(1);
});

test('the cache holds at most its bound, dropping the oldest entry first', async () => {
  const { registry, cached } = setup(60_000, 3);
  for (const hash of ['h1', 'h2', 'h3', 'h4']) await cached.tokenOwner(hash);
  expect(registry.reads.token).toBe(4);
  await cached.tokenOwner('h4');
  expect(registry.reads.token).toBe(4);
  await cached.tokenOwner('h1');
  expect(registry.reads.token).toBe(5);
});

test('a change made through it is seen at once; changes read the store itself, never the cache', async () => {
  const { registry, cached } = setup();
  expect((await cached.get('shop-a'))?.status).toBe('active');
  const changes = cached.forChanges();
  const current = await changes.get('shop-a');
  expect(registry.reads.store).toBe(2);
  expect(await changes.update({ ...current!, status: 'disabled', version: 2 })).toBe(true);
  expect((await cached.get('shop-a'))?.status).toBe('disabled');
  expect(registry.reads.store).toBe(2);
});

test('a cache time of 0 reads every time', async () => {
  const { registry, cached } = setup(0);
  await cached.get('shop-a');
  await cached.get('shop-a');
  expect(registry.reads.store).toBe(2);
});

/** Reads of the store that take the record as it is when asked, and answer only once `answer` is called. */
function heldStoreReads(registry: MemoryStoreRegistry) {
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const read = registry.get.bind(registry);
  registry.get = async (storeId) => {
    const record = await read(storeId);
    await answered;
    return record;
  };
  return answer;
}

test('a read under way when a change lands does not put the older record back', async () => {
  const { registry, cached } = setup();
  const before = await registry.get('shop-a');
  const answer = heldStoreReads(registry);
  const older = cached.get('shop-a');
  expect(await cached.update({ ...before!, status: 'disabled', version: 2 })).toBe(true);
  answer();
  expect((await older)?.status).toBe('active');
  expect((await cached.get('shop-a'))?.status).toBe('disabled');
});

test("nor does a change's own read of the store, under way when another change lands", async () => {
  const { registry, cached } = setup();
  const before = await registry.get('shop-a');
  const answer = heldStoreReads(registry);
  const older = cached.forChanges().get('shop-a');
  expect(await cached.update({ ...before!, status: 'disabled', version: 2 })).toBe(true);
  answer();
  expect((await older)?.status).toBe('active');
  expect((await cached.get('shop-a'))?.status).toBe('disabled');
});

test('with a cache time of 0, a read asked after a change does not share a read from before it', async () => {
  const { registry, cached } = setup(0);
  const before = await registry.get('shop-a');
  const answer = heldStoreReads(registry);
  const older = cached.get('shop-a');
  expect(await cached.update({ ...before!, status: 'disabled', version: 2 })).toBe(true);
  const after = cached.get('shop-a');
  answer();
  expect([(await older)?.status, (await after)?.status]).toEqual(['active', 'disabled']);
});

test("a token added while its owner is being looked up is not remembered as no one's", async () => {
  const { registry, cached } = setup();
  let answer!: () => void;
  const answered = new Promise<void>((resolve) => (answer = resolve));
  const lookUp = registry.tokenOwner.bind(registry);
  registry.tokenOwner = async (hash) => {
    const owner = await lookUp(hash);
    await answered;
    return owner;
  };
  const before = cached.tokenOwner('cc');
  await cached.addToken({ hash: 'cc', storeId: 'shop-a', scope: 'admin' });
  answer();
  expect(await before).toBeUndefined();
  expect(await cached.tokenOwner('cc')).toMatchObject({ storeId: 'shop-a', scope: 'admin' });
});
