import { routes } from '../../lib/routes';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // every refusal logs a warning; keep the run quiet
  harness = await startHarness();
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
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

type Scope = 'storefront' | 'admin' | 'service';

/** For every route: who may call it, and a request it would act on (write, or send upstream) if allowed. */
const REQUESTS: Record<(typeof routes)[number]['name'], { scope: Scope; path: string; body?: unknown }> = {
  checkout: { scope: 'storefront', path: '/checkout', body: checkoutBody('auth-new-invoice') },
  'get-invoice': { scope: 'storefront', path: '/invoices/auth-invoice' },
  'cancel-invoice': { scope: 'admin', path: '/invoices/auth-invoice/cancel' },
  rates: { scope: 'storefront', path: '/rates?from=BTC&to=EUR' },
  pairs: { scope: 'storefront', path: '/pairs?from=BTC&to=EUR' },
  'get-balances': { scope: 'admin', path: '/balances?live=true' },
  'balance-history': { scope: 'admin', path: '/balances/history' },
  'create-refund': { scope: 'admin', path: '/refunds', body: refundBody('auth-new-refund') },
  'get-refund': { scope: 'admin', path: '/refunds/auth-refund' },
  'lookup-transaction': { scope: 'admin', path: '/transactions?foreign_id=auth-refund' },
  callbacks: {
    scope: 'service',
    path: '/callbacks',
    body: { foreign_id: 'auth-invoice', type: 'invoice', status: 'confirmed', error: '' },
  },
};

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

async function call(name: keyof typeof REQUESTS, authorization: string | undefined) {
  const { path, body } = REQUESTS[name];
  const route = routes.find((candidate) => candidate.name === name)!;
  return harness.api(route.method, path, {
    body,
    headers: authorization === undefined ? {} : { authorization },
  });
}

test('the matrix covers every route', () => {
  expect(Object.keys(REQUESTS).sort()).toEqual(routes.map((route) => route.name).sort());
});

const names = routes.map((route) => route.name);
const cases = names.flatMap((name) =>
  BAD_CREDENTIALS.map(([label, header]) => [name, label, header] as const),
);

test.each(cases)('%s with %s is refused; nothing is written or sent', async (name, _label, header) => {
  const before = await state();

  const answer = await call(name, header(harness));

  const scope = REQUESTS[name].scope;
  expect({ status: answer.status, code: answer.body.error?.code }).toEqual(
    scope === 'service' ? { status: 403, code: 'invalid_signature' } : { status: 401, code: 'unauthorized' },
  );
  expect(await state()).toEqual(before);
});

const adminRoutes = names.filter((name) => REQUESTS[name].scope === 'admin');
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
  const opened = await Promise.all(
    names
      .filter((name) => REQUESTS[name].scope !== 'service')
      .map(async (name) => {
        const token =
          REQUESTS[name].scope === 'admin' ? harness.stack.adminToken : harness.stack.storefrontToken;
        return [name, (await call(name, `Bearer ${token}`)).status] as const;
      }),
  );
  expect(Object.fromEntries(opened)).toEqual({
    checkout: 201,
    'get-invoice': 200,
    'cancel-invoice': 200,
    rates: 200,
    pairs: 200,
    'get-balances': 200,
    'balance-history': 200,
    'create-refund': 201,
    'get-refund': 200,
    'lookup-transaction': 200,
  });
});
