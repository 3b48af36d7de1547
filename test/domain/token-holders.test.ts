// A rotation's new tokens work at once in a warm container that cached the store; a disable and an enable reach it
// within the cache's time (docs/operations.md, "The store cache").
import { createHash } from 'node:crypto';
import { StoreAdmin } from '../../domain/store-admin';
import { TokenHolders } from '../../domain/token-holders';
import { CachedStoreRegistry } from '../../store/store-cache';
import { MemorySecrets, MemoryStoreRegistry } from '../support/memory-stores';

const TTL_MS = 60_000;
const sha = (token: string) => createHash('sha256').update(token).digest('hex');

/** The store routes' container and a storefront route's container, each with its own cache of one table. */
function containers() {
  const table = new MemoryStoreRegistry();
  let now = 1_000_000;
  const clock = () => now;
  let serial = 0;
  const admin = new StoreAdmin({
    registry: new CachedStoreRegistry(table, TTL_MS, clock).forChanges(),
    secrets: new MemorySecrets(),
    newToken: () => `token-${(serial += 1)}`,
    newWebhookSecret: () => `whsec_${(serial += 1)}`,
    hashToken: sha,
    urlRefusal: () => undefined,
    webhooksOn: true,
    now: clock,
  });
  const cache = new CachedStoreRegistry(table, TTL_MS, clock);
  const poll = new TokenHolders({
    defaultTokens: {
      get: async () => ({ storefront: [], admin: [] }),
      refresh: async () => ({ storefront: [], admin: [] }),
    },
    platformToken: { get: async () => [], refresh: async () => [] },
    registry: cache,
    storeNow: (storeId) => cache.forChanges().get(storeId),
    now: clock,
  });
  return { table, admin, poll, advance: (ms: number) => (now += ms) };
}

test('the new tokens of a rotation work at once in a container that cached the store', async () => {
  const { admin, poll } = containers();
  const made = await admin.create({ id: 'shop-a', name: 'A' });
  expect(await poll.holderOf(made.tokens.storefront)).toMatchObject({ storeId: 'shop-a' });

  const rotated = await admin.rotate('shop-a', 0);
  expect(await poll.holderOf(rotated.tokens.storefront)).toMatchObject({ storeId: 'shop-a' });
  expect(await poll.holderOf(rotated.tokens.admin)).toMatchObject({ storeId: 'shop-a', scope: 'admin' });
});

test('the new tokens cost one uncached read of the store, then none; a warm token reads nothing', async () => {
  const { table, admin, poll } = containers();
  const made = await admin.create({ id: 'shop-a', name: 'A' });
  await poll.holderOf(made.tokens.storefront);
  const rotated = await admin.rotate('shop-a', 3600);
  const before = { ...table.reads };
  await poll.holderOf(rotated.tokens.storefront);
  expect(table.reads).toEqual({ store: before.store + 1, token: before.token + 1 });
  const warm = { ...table.reads };
  expect(await poll.holderOf(rotated.tokens.storefront)).toMatchObject({ storeId: 'shop-a' });
  // The previous token, in its grace, is listed by the refreshed item too.
  expect(await poll.holderOf(made.tokens.storefront)).toMatchObject({ storeId: 'shop-a' });
  expect(table.reads).toEqual(warm);
});

test('a token rotated out with no grace is refused, after the one uncached read', async () => {
  const { table, admin, poll } = containers();
  const made = await admin.create({ id: 'shop-a', name: 'A' });
  await admin.rotate('shop-a', 0);
  const before = { ...table.reads };
  expect(await poll.holderOf(made.tokens.storefront)).toBeUndefined();
  // The cached owner and a fresh item: nothing is cached that would let the old token in.
  expect(table.reads.store).toBeGreaterThan(before.store);
});

test('a disable and an enable reach a warm container within the store cache time', async () => {
  const { admin, poll, advance } = containers();
  const made = await admin.create({ id: 'shop-a', name: 'A' });
  expect(await poll.holderOf(made.tokens.storefront)).toMatchObject({ status: 'active' });
  await admin.setStatus('shop-a', 'disabled');
  advance(TTL_MS);
  expect(await poll.holderOf(made.tokens.storefront)).toMatchObject({ status: 'disabled' });
  expect(await poll.statusOf('shop-a')).toBe('disabled');
  await admin.setStatus('shop-a', 'active');
  advance(TTL_MS);
  expect(await poll.holderOf(made.tokens.storefront)).toMatchObject({ status: 'active' });
  expect(await poll.statusOf('shop-a')).toBe('active');
});

test('the end of a grace reaches a warm container within the store cache time', async () => {
  const { admin, poll, advance } = containers();
  const made = await admin.create({ id: 'shop-a', name: 'A' });
  await admin.rotate('shop-a', 10);
  expect(await poll.holderOf(made.tokens.storefront)).toMatchObject({ storeId: 'shop-a' });
  advance(TTL_MS);
  expect(await poll.holderOf(made.tokens.storefront)).toBeUndefined();
});

test("an unfinished store's tokens are refused and the platform finds no such store; once finished, both at once", async () => {
  const { table, admin, poll } = containers();
  const made = await admin.create({ id: 'shop-u', name: 'U' });
  const finished = table.stores.get('shop-u')!;
  // As a create that failed before its secret leaves it.
  table.stores.set('shop-u', {
    ...finished,
    unfinished: { request: 'salt:digest', until: 0, version: finished.version },
  });
  expect(await poll.holderOf(made.tokens.admin)).toBeUndefined();
  expect(await poll.statusOf('shop-u')).toBeUndefined();
  // Finished, it is read again though the container cached it unfinished.
  table.stores.set('shop-u', finished);
  expect(await poll.statusOf('shop-u')).toBe('active');
  expect(await poll.holderOf(made.tokens.admin)).toMatchObject({ storeId: 'shop-u', scope: 'admin' });
});
