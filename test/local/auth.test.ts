import { eventId } from '../../domain/webhooks';
import { routes, type RouteFunctionName } from '../../lib/routes';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { addFailedDelivery, scanTable } from '../support/table';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
const AUTH_EVENT = eventId('invoice', 'auth-invoice', 0, 1);
beforeAll(async () => {
  output = captureOutput(); // every refusal logs a warning; keep the run quiet
  harness = await startHarness();
  // A paid order to refund, paid while the sandbox's callbacks still reach the plugin.
  await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('auth-paid') });
  expect((await harness.control('POST', '/invoices/auth-paid/pay', { kind: 'full' })).status).toBe(200);
  const paid = await waitFor(
    () => harness.api('GET', '/invoices/auth-paid', { token: 'storefront' }),
    ({ body }) => body.refundable !== null,
    30_000,
  );
  expect(paid.body.status).toBe('paid');
  // The sandbox's own callbacks would write to the table between the before and after snapshots.
  await harness.control('POST', '/callbacks', { url: null });
  // Records the admin routes would act on, had they let the caller in.
  expect(
    (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('auth-invoice') }))
      .status,
  ).toBe(201);
  expect(
    (await harness.api('POST', '/refunds', { token: 'admin', body: refundBody('auth-refund') })).status,
  ).toBe(201);
  // A claim link, for the route that cancels one.
  const claim = { foreign_id: 'auth-claim', debited_amount: '1' };
  expect(
    (await harness.api('POST', '/invoices/auth-paid/refunds', { token: 'admin', body: claim })).status,
  ).toBe(201);
  // A failed webhook delivery, for the re-send routes (no dispatcher runs here: no webhook URL).
  await addFailedDelivery(harness.stack, AUTH_EVENT, 'auth-invoice');
  // A store for the store routes to act on.
  expect(
    (await harness.api('POST', '/stores', { token: 'platform', body: { id: 'auth-store', name: 'Auth' } }))
      .status,
  ).toBe(201);
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

/**
 * A request each route would act on (write, or send upstream) if allowed: for a route that needs a record, a body or
 * a query, written here; any other route is called at its path as the route table gives it.
 */
const REQUESTS: Partial<Record<RouteFunctionName, { path: string; body?: unknown }>> = {
  checkout: { path: '/checkout', body: checkoutBody('auth-new-invoice') },
  'get-invoice': { path: '/invoices/auth-invoice' },
  'list-invoices': { path: '/invoices' },
  'cancel-invoice': { path: '/invoices/auth-invoice/cancel' },
  'refund-invoice': {
    path: '/invoices/auth-paid/refunds',
    body: { foreign_id: 'auth-order-refund', debited_amount: '1', address: refundBody('x').address },
  },
  rates: { path: '/rates?from=BTC&to=EUR' },
  pairs: { path: '/pairs?from=BTC&to=EUR' },
  'checkout-options': { path: '/checkout/options?amount=10&currency=EUR' },
  'get-balances': { path: '/balances?live=true' },
  'balance-history': { path: '/balances/history' },
  'create-refund': { path: '/refunds', body: refundBody('auth-new-refund') },
  'list-refunds': { path: '/refunds' },
  'get-refund': { path: '/refunds/auth-refund' },
  'cancel-refund-claim': { path: '/refunds/auth-claim/cancel-claim' },
  'get-refund-claim': { path: '/public/refund-claims/auth-refund' },
  'claim-refund': { path: '/public/refund-claims/auth-refund', body: { address: refundBody('x').address } },
  'lookup-transaction': { path: '/transactions?foreign_id=auth-refund' },
  callbacks: {
    path: '/callbacks',
    body: { foreign_id: 'auth-invoice', type: 'invoice', status: 'confirmed', error: '' },
  },
  // The default store shares the deployment's account, so even a signed callback here would change nothing.
  'store-callbacks': {
    path: '/callbacks/default',
    body: { foreign_id: 'auth-invoice', type: 'invoice', status: 'confirmed', error: '' },
  },
  openapi: { path: '/openapi.json' },
  'public-invoice': { path: '/public/invoices/auth-invoice' },
  'resend-webhook': { path: `/webhooks/deliveries/${AUTH_EVENT}/resend` },
  'create-store': { path: '/stores', body: { id: 'auth-made', name: 'Made here' } },
  'get-store': { path: '/stores/auth-store' },
  'update-store': { path: '/stores/auth-store', body: { name: 'Renamed' } },
  'rotate-store-tokens': { path: '/stores/auth-store/tokens/rotate', body: { grace_seconds: 60 } },
  'rotate-store-webhook-secret': {
    path: '/stores/auth-store/webhook-secret/rotate',
    body: { grace_seconds: 60 },
  },
  'disable-store': { path: '/stores/auth-store/disable' },
  'enable-store': { path: '/stores/auth-store/enable' },
};

const routeOf = (name: RouteFunctionName) => routes.find((route) => route.name === name)!;
const requestFor = (name: RouteFunctionName) => REQUESTS[name] ?? { path: routeOf(name).path };
/** Who may call it, as the route table says. */
const scopeOf = (name: RouteFunctionName) => routeOf(name).access;

/** Credentials that must not open a route, and what they get: the header to send (none when undefined). */
const BAD_CREDENTIALS: Array<[string, (h: Harness) => string | undefined]> = [
  ['no token', () => undefined],
  ['a wrong token', () => 'Bearer not-a-real-token'],
  ['an empty bearer', () => 'Bearer '],
  ['the admin token with another scheme', (h) => `Basic ${h.stack.adminToken}`],
  ['the admin token without a scheme', (h) => h.stack.adminToken],
  ['a prefix of the admin token', (h) => `Bearer ${h.stack.adminToken.slice(0, -1)}`],
  ['the admin token with a suffix', (h) => `Bearer ${h.stack.adminToken}x`],
  ['the admin token with a trailing comma', (h) => `Bearer ${h.stack.adminToken},`],
];

const state = async () => ({
  table: JSON.stringify((await scanTable(harness.stack)).map((item) => JSON.stringify(item)).sort()),
  upstream: (await harness.upstreamRequests('/v2/*')).length,
});

async function call(name: RouteFunctionName, authorization: string | undefined) {
  const { path, body } = requestFor(name);
  return harness.api(routeOf(name).method, path, {
    body,
    headers: authorization === undefined ? {} : { authorization },
  });
}

test('the matrix covers every route: one written here, or one whose path has no parameter to fill', () => {
  const bare = routes.filter((route) => REQUESTS[route.name] === undefined).map((route) => route.path);
  expect(bare.filter((path) => path.includes('{'))).toEqual([]);
});

const names = routes.map((route) => route.name);
// A customer route takes no bearer token: its client secret is tested in test/local/public-invoice.test.ts, and a
// claim link's token in test/local/refund-claims.test.ts.
const guarded = names.filter(
  (name) => scopeOf(name) !== 'public' && scopeOf(name) !== 'customer' && scopeOf(name) !== 'claimant',
);
const cases = guarded.flatMap((name) =>
  BAD_CREDENTIALS.map(([label, header]) => [name, label, header] as const),
);

test.each(cases)('%s with %s is refused; nothing is written or sent', async (name, _label, header) => {
  const before = await state();

  const answer = await call(name, header(harness));

  const scope = scopeOf(name);
  expect({ status: answer.status, code: answer.body.error?.code }).toEqual(
    scope === 'service' ? { status: 403, code: 'invalid_signature' } : { status: 401, code: 'unauthorized' },
  );
  expect(await state()).toEqual(before);
});

const platformRoutes = names.filter((name) => scopeOf(name) === 'platform');
test.each(
  platformRoutes.flatMap((name) => (['storefront', 'admin'] as const).map((scope) => [name, scope] as const)),
)(
  "%s with the default store's %s token is refused with 403; nothing is written or sent",
  async (name, scope) => {
    const before = await state();

    const token = scope === 'admin' ? harness.stack.adminToken : harness.stack.storefrontToken;
    const answer = await call(name, `Bearer ${token}`);

    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await state()).toEqual(before);
  },
);

const adminRoutes = names.filter((name) => scopeOf(name) === 'admin');
test.each(adminRoutes)(
  '%s with the storefront token is refused with 403; nothing is written or sent',
  async (name) => {
    const before = await state();

    const answer = await call(name, `Bearer ${harness.stack.storefrontToken}`);

    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 403,
      code: 'forbidden',
    });
    expect(await state()).toEqual(before);
  },
);

const publicRoutes = names.filter((name) => scopeOf(name) === 'public');
test.each(
  publicRoutes.flatMap((name) => BAD_CREDENTIALS.map(([label, header]) => [name, label, header] as const)),
)('%s, a public route, answers 200 whatever the credentials, here %s', async (name, _label, header) => {
  expect((await call(name, header(harness))).status).toBe(200);
});

test.each(['storefront', 'admin'] as const)(
  'callbacks with the %s token but no signature are refused',
  async (scope) => {
    const before = await state();
    const token = scope === 'admin' ? harness.stack.adminToken : harness.stack.storefrontToken;

    const answer = await call('callbacks', `Bearer ${token}`);

    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 403,
      code: 'invalid_signature',
    });
    expect(await state()).toEqual(before);
  },
);

test('the right token opens each bearer route (the matrix requests are valid)', async () => {
  // One at a time: the store routes change one store, and changes of one store at once may answer 409 in_progress.
  const opened: Array<readonly [RouteFunctionName, number]> = [];
  for (const name of guarded.filter((one) => scopeOf(one) !== 'service')) {
    const { adminToken, storefrontToken, platformToken } = harness.stack;
    const scope = scopeOf(name);
    const token = scope === 'platform' ? platformToken : scope === 'admin' ? adminToken : storefrontToken;
    opened.push([name, (await call(name, `Bearer ${token}`)).status] as const);
  }
  // A create answers 201; every other route 200.
  const created = new Set<RouteFunctionName>(['checkout', 'create-refund', 'refund-invoice', 'create-store']);
  expect(Object.fromEntries(opened)).toEqual(
    Object.fromEntries(opened.map(([name]) => [name, created.has(name) ? 201 : 200])),
  );
});

test('the admin token opens every storefront route too', async () => {
  const storefrontRoutes = names.filter((name) => scopeOf(name) === 'storefront');
  const opened = await Promise.all(
    storefrontRoutes.map(async (name) => {
      const answer = await call(name, `Bearer ${harness.stack.adminToken}`);
      return [name, answer.status >= 200 && answer.status < 300] as const;
    }),
  );
  expect(Object.fromEntries(opened)).toEqual(
    Object.fromEntries(storefrontRoutes.map((name) => [name, true])),
  );
});

describe('token rotation', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const poll = (token: string) => harness.api('GET', '/invoices/auth-invoice', { token });
  const putTokens = (value: object) =>
    harness.stack.secrets.put(harness.stack.secretIds.tokens, JSON.stringify(value));
  const tokenReads = () => harness.stack.secrets.calls(harness.stack.secretIds.tokens);
  const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();
  // The functions look again at most once a second; waiting that long makes the next look certain.
  const pastTheRefreshLimit = () => sleep(1_100);

  test('a warm container accepts a newly rotated token at once, and the previous one for the overlap', async () => {
    const { storefrontToken, adminToken } = harness.stack;
    expect((await poll(storefrontToken)).status).toBe(200);
    await pastTheRefreshLimit();
    putTokens({
      storefront_token: 'rotated-storefront-token',
      admin_token: adminToken,
      previous_storefront_token: storefrontToken,
      previous_storefront_token_expires_at: inAnHour(),
    });
    const before = tokenReads();

    expect((await poll('rotated-storefront-token')).status).toBe(200);
    expect(tokenReads()).toBe(before + 1);
    expect((await poll(storefrontToken)).status).toBe(200);
    expect(tokenReads()).toBe(before + 1);
  });

  test('a previous token whose stated time is up is refused', async () => {
    await pastTheRefreshLimit();
    putTokens({
      storefront_token: 'rotated-again',
      admin_token: harness.stack.adminToken,
      previous_storefront_token: 'rotated-storefront-token',
      previous_storefront_token_expires_at: new Date(Date.now() - 1_000).toISOString(),
    });

    expect((await poll('rotated-again')).status).toBe(200);
    expect((await poll('rotated-storefront-token')).status).toBe(401);
  });

  test('a flood of unknown tokens makes each container look again at most once a second', async () => {
    const before = tokenReads();
    const started = Date.now();
    for (let i = 0; i < 30; i++) expect((await poll(`flood-${i}`)).status).toBe(401);
    const seconds = (Date.now() - started) / 1000;
    expect(tokenReads() - before).toBeLessThanOrEqual(Math.floor(seconds) + 1);
  });
});
