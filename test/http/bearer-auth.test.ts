// The bearer check of apiRoute, with token sources and a store registry whose answers the test controls.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Tokens } from '../../domain/ports';
import type { Caller, StoreRecord } from '../../domain/stores';
import { TokenHolders, tokenDigest } from '../../domain/token-holders';
import { apiRoute } from '../../http/route';
import { balanceHistoryRoute, getInvoiceRoute, listStoresRoute } from '../../lib/routes';
import { lambdaContext } from '../../local/lambda-context';
import { CachedStoreRegistry } from '../../store/store-cache';
import { MemoryStoreRegistry, unlimited } from '../support/memory-stores';
import { captureOutput, type CapturedOutput } from '../support/output';

let output: CapturedOutput;
beforeEach(() => (output = captureOutput())); // refusals log a warning
afterEach(() => output.restore());

/** Serves `held` until a refresh, which answers `fresh`. */
function tokenSource(held: Tokens, fresh: Tokens = held) {
  return { get: jest.fn(async () => held), refresh: jest.fn(async () => (held = fresh)) };
}

const hex = (token: string) => tokenDigest(token).toString('hex');

function storeRecord(id: string, tokens: { storefront: string; admin: string }): StoreRecord {
  return {
    id,
    name: id,
    status: 'active',
    account: 'shared',
    createdAt: 1,
    updatedAt: 1,
    version: 1,
    tokens: { storefront: hex(tokens.storefront), admin: hex(tokens.admin) },
  };
}

/** The default store's tokens, the platform token `p1`, and a store `shop-b` whose tokens are `sb` and `ab`. */
function holders(defaults: ReturnType<typeof tokenSource>, now = () => Date.now()) {
  const registry = new MemoryStoreRegistry();
  const record = storeRecord('shop-b', { storefront: 'sb', admin: 'ab' });
  registry.stores.set('shop-b', record);
  registry.owners.set(hex('sb'), { hash: hex('sb'), storeId: 'shop-b', scope: 'storefront' });
  registry.owners.set(hex('ab'), { hash: hex('ab'), storeId: 'shop-b', scope: 'admin' });
  const platformToken = { get: jest.fn(async () => ['p1']), refresh: jest.fn(async () => ['p1']) };
  const tokens = new TokenHolders({
    defaultTokens: defaults,
    platformToken,
    registry,
    storeNow: (storeId) => registry.get(storeId),
    now,
  });
  return { tokens, registry, platformToken };
}

type Route = typeof getInvoiceRoute | typeof balanceHistoryRoute | typeof listStoresRoute;

function handlerFor(route: Route, tokens: TokenHolders, seen: Caller[] = []) {
  const guard = route.access === 'platform' ? { route, tokens } : { route, tokens, limits: unlimited };
  return apiRoute({ ...guard, input: () => undefined }, async (_input, caller) => {
    seen.push(caller);
    return { status: 200, body: {} };
  });
}

async function call(
  handler: ReturnType<typeof handlerFor>,
  token: string,
  headers: Record<string, string> = {},
): Promise<number> {
  const event = {
    routeKey: 'GET /test',
    rawPath: '/test',
    headers: { authorization: `Bearer ${token}`, ...headers },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  const result = (await handler(event, lambdaContext('test', 25_000))) as APIGatewayProxyStructuredResultV2;
  return result.statusCode!;
}

const before = { storefront: ['s1'], admin: ['a1'] };
const rotating = { storefront: ['s2', 's1'], admin: ['a1'] };

test('the current token and the previous one during the overlap open the route, with no second look', async () => {
  const source = tokenSource(rotating);
  const storefront = handlerFor(getInvoiceRoute, holders(source).tokens);
  expect(await call(storefront, 's2')).toBe(200);
  expect(await call(storefront, 's1')).toBe(200);
  expect(source.refresh).not.toHaveBeenCalled();
});

test('a token the container does not know yet makes it look again, and a newly rotated one is accepted at once', async () => {
  const source = tokenSource(before, rotating);
  expect(await call(handlerFor(getInvoiceRoute, holders(source).tokens), 's2')).toBe(200);
  expect(source.refresh).toHaveBeenCalledTimes(1);
});

test('a token that matches none after a second look is refused with 401', async () => {
  const source = tokenSource(before);
  expect(await call(handlerFor(getInvoiceRoute, holders(source).tokens), 'nope')).toBe(401);
  expect(source.refresh).toHaveBeenCalledTimes(1);
});

test('the storefront token on an admin route is refused without a second look', async () => {
  const source = tokenSource(before);
  expect(await call(handlerFor(balanceHistoryRoute, holders(source).tokens), 's1')).toBe(403);
  expect(source.refresh).not.toHaveBeenCalled();
});

test('the admin token opens a storefront route, with no second look', async () => {
  const source = tokenSource(before);
  expect(await call(handlerFor(getInvoiceRoute, holders(source).tokens), 'a1')).toBe(200);
  expect(source.refresh).not.toHaveBeenCalled();
});

test("the default store's tokens never read the platform token nor the registry", async () => {
  const { tokens, registry, platformToken } = holders(tokenSource(before));
  const seen: Caller[] = [];
  expect(await call(handlerFor(getInvoiceRoute, tokens, seen), 's1')).toBe(200);
  expect(await call(handlerFor(balanceHistoryRoute, tokens, seen), 'a1')).toBe(200);
  expect(seen).toEqual([
    { storeId: 'default', scope: 'storefront' },
    { storeId: 'default', scope: 'admin' },
  ]);
  expect(platformToken.get).not.toHaveBeenCalled();
  expect(registry.reads).toEqual({ store: 0, token: 0 });
});

test("a store's token acts for its store, in its scope, without a second look at the secrets", async () => {
  const source = tokenSource(before);
  const { tokens } = holders(source);
  const seen: Caller[] = [];
  expect(await call(handlerFor(getInvoiceRoute, tokens, seen), 'sb')).toBe(200);
  expect(await call(handlerFor(balanceHistoryRoute, tokens, seen), 'ab')).toBe(200);
  expect(await call(handlerFor(balanceHistoryRoute, tokens, seen), 'sb')).toBe(403);
  expect(await call(handlerFor(listStoresRoute, tokens, seen), 'ab')).toBe(403);
  expect(seen).toEqual([
    { storeId: 'shop-b', scope: 'storefront' },
    { storeId: 'shop-b', scope: 'admin' },
  ]);
  expect(source.refresh).not.toHaveBeenCalled();
});

test('the platform token acts for the store in Store-Id, else the default one; an unknown store is a 404', async () => {
  const { tokens } = holders(tokenSource(before));
  const seen: Caller[] = [];
  expect(await call(handlerFor(balanceHistoryRoute, tokens, seen), 'p1')).toBe(200);
  expect(await call(handlerFor(getInvoiceRoute, tokens, seen), 'p1', { 'store-id': 'shop-b' })).toBe(200);
  expect(await call(handlerFor(listStoresRoute, tokens, seen), 'p1')).toBe(200);
  expect(await call(handlerFor(getInvoiceRoute, tokens, seen), 'p1', { 'store-id': 'shop-z' })).toBe(404);
  expect(await call(handlerFor(getInvoiceRoute, tokens, seen), 'p1', { 'store-id': 'Not A Store' })).toBe(
    400,
  );
  expect(seen).toEqual([
    { storeId: 'default', scope: 'platform' },
    { storeId: 'shop-b', scope: 'platform' },
    { storeId: 'default', scope: 'platform' },
  ]);
});

test("a store's token may not name another store in Store-Id; its own is accepted", async () => {
  const { tokens } = holders(tokenSource(before));
  expect(await call(handlerFor(balanceHistoryRoute, tokens), 'ab', { 'store-id': 'default' })).toBe(403);
  expect(await call(handlerFor(balanceHistoryRoute, tokens), 'a1', { 'store-id': 'shop-b' })).toBe(403);
  expect(await call(handlerFor(balanceHistoryRoute, tokens), 'ab', { 'store-id': 'shop-b' })).toBe(200);
});

test("a disabled store's tokens, and the platform token acting for it, answer 403 store_disabled", async () => {
  const { tokens, registry } = holders(tokenSource(before));
  registry.stores.set('shop-b', { ...registry.stores.get('shop-b')!, status: 'disabled' });
  expect(await call(handlerFor(getInvoiceRoute, tokens), 'sb')).toBe(403);
  expect(await call(handlerFor(getInvoiceRoute, tokens), 'p1', { 'store-id': 'shop-b' })).toBe(403);
  expect(output.text()).toContain('store_disabled');
});

test('a rotated-out token works until its grace ends, then answers 401 with no look at the secrets', async () => {
  let now = 1_000;
  const source = tokenSource(before);
  const { tokens, registry } = holders(source, () => now);
  const record = registry.stores.get('shop-b')!;
  registry.owners.set(hex('sb2'), { hash: hex('sb2'), storeId: 'shop-b', scope: 'storefront' });
  registry.stores.set('shop-b', {
    ...record,
    tokens: { ...record.tokens, storefront: hex('sb2') },
    previousTokens: { ...record.tokens, expiresAt: 2_000 },
    version: 2,
  });
  const route = handlerFor(getInvoiceRoute, tokens);
  expect(await call(route, 'sb')).toBe(200);
  expect(await call(route, 'sb2')).toBe(200);
  now = 2_000;
  expect(await call(route, 'sb')).toBe(401);
  expect(await call(route, 'sb2')).toBe(200);
  expect(source.refresh).not.toHaveBeenCalled();
});

test('through the cache, a warm request with a store token reads no registry item', async () => {
  const { registry } = holders(tokenSource(before));
  const cached = new CachedStoreRegistry(registry, 60_000);
  const tokens = new TokenHolders({
    defaultTokens: tokenSource(before),
    platformToken: { get: async () => ['p1'], refresh: async () => ['p1'] },
    registry: cached,
    storeNow: (storeId) => cached.forChanges().get(storeId),
    now: Date.now,
  });
  const route = handlerFor(getInvoiceRoute, tokens);
  expect(await call(route, 'sb')).toBe(200);
  const cold = { ...registry.reads };
  expect(await call(route, 'sb')).toBe(200);
  expect(await call(route, 'sb')).toBe(200);
  expect(registry.reads).toEqual(cold);
  expect(cold).toEqual({ store: 1, token: 1 });
});
