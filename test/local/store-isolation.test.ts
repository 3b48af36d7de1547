// Issue 33's isolation, end to end through the real handlers on the local stack: two stores sharing the
// deployment's account, each with 100 concurrent checkouts under the same foreign_ids, and a third store on its own
// account (a second sandbox). No store's token, list, client secret or callback reaches another store's records.
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { invoiceCallbackBody, signBody } from '../support/callbacks';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';
import { waitFor } from '../support/wait';

const A = 'iso-a';
const B = 'iso-b';
const OWN = 'iso-own';
const ORDERS = 100;
const orderIds = Array.from({ length: ORDERS }, (_, i) => `iso-order-${i}`);
const GRACE_SECONDS = 1;

interface StoreTokens {
  storefront: string;
  admin: string;
}

let harness: Harness;
let output: CapturedOutput;
let ownSandbox: Sandbox;
const tokens: Record<string, StoreTokens> = {};
/** Each store's client secret of its `iso-order-0`. */
const secrets: Record<string, string> = {};

beforeAll(async () => {
  output = captureOutput(); // refused callbacks log warnings; keep the run quiet
  harness = await startHarness({
    env: { RECONCILE_EXPIRY_GRACE_SECONDS: String(GRACE_SECONDS), RECONCILE_BATCH: '1000' },
  });
  // Every callback of the deployment's sandbox is lost: each one here is sent by the test itself.
  await harness.control('POST', '/callbacks', { url: 'http://127.0.0.1:9/callbacks', retry_ms: [] });
  ownSandbox = await startSandbox({ apiKey: 'own-api-key', secretKey: 'own-secret-key' });
  const stores: Array<[string, object]> = [
    [A, {}],
    [B, {}],
    [OWN, { processing: { api_key: 'own-api-key', secret_key: 'own-secret-key', base_url: ownSandbox.url } }],
  ];
  for (const [id, extra] of stores) {
    const made = await harness.api('POST', '/stores', {
      token: 'platform',
      body: { id, name: `Store ${id}`, ...extra },
    });
    expect(made.status).toBe(201);
    tokens[id] = { storefront: made.body.storefront_token, admin: made.body.admin_token };
  }
}, 60_000);
afterAll(async () => {
  await ownSandbox?.close();
  await harness?.close();
  output?.restore();
});

const as = (store: string, scope: keyof StoreTokens) => tokens[store][scope];
const invoiceItems = async (store: string) =>
  (await scanTable(harness.stack))
    .filter((item) => item.pk.S?.startsWith(`S#${store}#INVOICE#`))
    .map((item) => JSON.stringify(item));

/** Every page of a list route, with the token given. */
async function listAll(path: string, token: string): Promise<Array<{ foreign_id: string }>> {
  const all: Array<{ foreign_id: string }> = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = await harness.api('GET', `${path}?${query}`, { token });
    expect(page.status).toBe(200);
    all.push(...page.body.data);
    cursor = page.body.next_cursor;
  } while (cursor);
  return all;
}

test('100 concurrent checkouts per store under the same foreign_ids: one invoice per store and order, two upstream', async () => {
  const checkouts = [A, B].flatMap((store) =>
    orderIds.map(async (foreignId) => {
      const answer = await harness.api('POST', '/checkout', {
        token: as(store, 'storefront'),
        body: checkoutBody(foreignId),
      });
      return { store, foreignId, status: answer.status, secret: answer.body.client_secret as string };
    }),
  );
  const answers = await Promise.all(checkouts);

  expect(answers.filter((answer) => answer.status !== 201)).toEqual([]);
  for (const { store, foreignId, secret } of answers) {
    expect(secret.startsWith(`cs_${store}!`)).toBe(true);
    if (foreignId === 'iso-order-0') secrets[store] = secret;
  }
  // The same requests again are answered with the same invoices, making no new one.
  const again = await harness.api('POST', '/checkout', {
    token: as(B, 'storefront'),
    body: checkoutBody('iso-order-7'),
  });
  expect(again.status).toBe(200);

  const upstream = await harness.control('GET', '/transactions');
  const upstreamIds = (upstream.body.invoices as Array<{ foreign_id: string }>).map((i) => i.foreign_id);
  for (const foreignId of orderIds) {
    expect(upstreamIds.filter((id) => id.endsWith(`!${foreignId}`)).sort()).toEqual([
      `${A}!${foreignId}`,
      `${B}!${foreignId}`,
    ]);
    expect(upstreamIds).not.toContain(foreignId);
  }
  const items = await scanTable(harness.stack);
  const keys = items.map((item) => item.pk.S ?? '');
  for (const store of [A, B]) {
    const own = items.filter((item) => item.pk.S?.startsWith(`S#${store}#INVOICE#`));
    expect(own).toHaveLength(ORDERS);
    expect(own.every((item) => item.store?.S === store)).toBe(true);
  }
  expect(keys.filter((key) => key.startsWith('INVOICE#iso-'))).toEqual([]);
}, 300_000);

test("each store's tokens get 404 on the other's orders and refunds, as on an unknown one", async () => {
  const onlyA = await harness.api('POST', '/checkout', {
    token: as(A, 'storefront'),
    body: checkoutBody('iso-only-a'),
  });
  expect(onlyA.status).toBe(201);
  // A store sharing the account refunds only its orders: iso-only-a is paid, its callback let through this once.
  await harness.control('POST', '/callbacks', { url: `${harness.stack.url}/callbacks` });
  const pay = await harness.control('POST', `/invoices/${encodeURIComponent(`${A}!iso-only-a`)}/pay`, {
    kind: 'full',
  });
  expect(pay.status).toBe(200);
  const paid = await waitFor(
    () => harness.api('GET', '/invoices/iso-only-a', { token: as(A, 'storefront') }),
    ({ body }) => body.status === 'paid' && body.refundable !== null,
    30_000,
  );
  expect(paid.body.status).toBe('paid');
  const refundA = await harness.api('POST', '/invoices/iso-only-a/refunds', {
    token: as(A, 'admin'),
    body: { foreign_id: 'iso-refund-a', debited_amount: '1', address: refundBody('x').address },
  });
  await harness.control('POST', '/callbacks', { url: 'http://127.0.0.1:9/callbacks', retry_ms: [] });
  expect(refundA.status).toBe(201);
  const withdrawals = (await harness.control('GET', '/transactions')).body.withdrawals as Array<{
    foreign_id: string;
  }>;
  expect(withdrawals.map((w) => w.foreign_id)).toContain(`${A}!iso-refund-a`);

  expect((await harness.api('GET', '/invoices/iso-only-a', { token: as(A, 'storefront') })).status).toBe(200);
  expect((await harness.api('GET', '/refunds/iso-refund-a', { token: as(A, 'admin') })).status).toBe(200);
  const unknown = await harness.api('GET', '/invoices/iso-never-made', { token: as(B, 'storefront') });
  const others: Array<[string, string, string, unknown?]> = [
    [B, 'GET', '/invoices/iso-only-a'],
    [B, 'POST', '/invoices/iso-only-a/cancel'],
    [
      B,
      'POST',
      '/invoices/iso-only-a/refunds',
      { foreign_id: 'iso-refund-b', debited_amount: '1', address: refundBody('x').address },
    ],
    [B, 'GET', '/refunds/iso-refund-a'],
    [B, 'GET', '/transactions?foreign_id=iso-refund-a'],
    [OWN, 'GET', '/invoices/iso-only-a'],
    ['default', 'GET', '/invoices/iso-only-a'],
    ['default', 'GET', '/refunds/iso-refund-a'],
  ];
  for (const [store, method, path, body] of others) {
    const admin = method === 'POST' || path.startsWith('/refunds') || path.startsWith('/transactions');
    const token =
      store === 'default' ? (admin ? 'admin' : 'storefront') : as(store, admin ? 'admin' : 'storefront');
    const answer = await harness.api(method, path, { token, body });
    expect({ store, method, path, status: answer.status }).toEqual({ store, method, path, status: 404 });
    if (path.startsWith('/invoices/')) expect(answer.body).toEqual(unknown.body);
  }
  // The same foreign_id in another store is that store's own order.
  const sameId = await harness.api('GET', '/invoices/iso-order-0', { token: as(B, 'storefront') });
  expect(sameId.status).toBe(200);
});

test("lists and exports never show another store's records", async () => {
  const invoicesA = (await listAll('/invoices', as(A, 'admin'))).map((view) => view.foreign_id);
  const invoicesB = (await listAll('/invoices', as(B, 'admin'))).map((view) => view.foreign_id);
  const invoicesOwn = (await listAll('/invoices', as(OWN, 'admin'))).map((view) => view.foreign_id);
  const invoicesDefault = (await listAll('/invoices', 'admin')).map((view) => view.foreign_id);

  expect(invoicesA.sort()).toEqual([...orderIds, 'iso-only-a'].sort());
  expect(invoicesB.sort()).toEqual([...orderIds].sort());
  expect(invoicesOwn).toEqual([]);
  expect(invoicesDefault.filter((id) => id.startsWith('iso-'))).toEqual([]);
  expect((await listAll('/refunds', as(A, 'admin'))).map((view) => view.foreign_id)).toEqual([
    'iso-refund-a',
  ]);
  expect(await listAll('/refunds', as(B, 'admin'))).toEqual([]);

  const exportB = await harness.api('GET', '/exports/invoices.csv', { token: as(B, 'admin') });
  expect(exportB.status).toBe(200);
  expect(String(exportB.body)).toContain('iso-order-1');
  expect(String(exportB.body)).not.toContain('iso-only-a');
});

test("a client secret opens only its own store's invoice of that foreign_id", async () => {
  const open = (secret: string) =>
    harness.api('GET', '/public/invoices/iso-order-0', { headers: { 'x-client-secret': secret } });
  const [viewA, viewB] = [await open(secrets[A]), await open(secrets[B])];

  expect([viewA.status, viewB.status]).toEqual([200, 200]);
  // Each store's own upstream invoice: its own payment address.
  expect(viewA.body.payment_uri).toEqual(expect.any(String));
  expect(viewA.body.payment_uri).not.toEqual(viewB.body.payment_uri);
  // A's secret with B's name in it opens nothing.
  expect((await open(secrets[A].replace(`cs_${A}!`, `cs_${B}!`))).status).toBe(404);
  expect((await open(secrets[A].replace(`cs_${A}!`, 'cs_'))).status).toBe(404);
});

test("a callback signed with one store's keys never changes another store's record", async () => {
  const beforeA = await invoiceItems(A);
  const beforeB = await invoiceItems(B);
  const post = (path: string, body: string, keys: { apiKey: string; secretKey: string }) =>
    harness.api('POST', path, {
      body,
      headers: {
        'content-type': 'application/json',
        'X-Processing-Key': keys.apiKey,
        'X-Processing-Signature': signBody(keys.secretKey, body),
      },
    });
  const ownKeys = { apiKey: 'own-api-key', secretKey: 'own-secret-key' };
  const deploymentKeys = {
    apiKey: harness.stack.sandbox!.apiKey,
    secretKey: harness.stack.sandbox!.secretKey,
  };

  // Signed with the own-account store's keys, for B's invoice: refused on the deployment's URL...
  const forB = invoiceCallbackBody(`${B}!iso-order-1`, 'processing');
  const refused = await post('/callbacks', forB, ownKeys);
  expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
    status: 403,
    code: 'invalid_signature',
  });
  // ...and ignored on its own store's URL, whose records hold no prefix; the bare id is not B's either.
  expect((await post(`/callbacks/${OWN}`, forB, ownKeys)).body).toEqual({ outcome: 'ignored' });
  const bare = invoiceCallbackBody('iso-order-1', 'processing');
  // The same news once the order exists: other bytes, so not a repeat of the delivery ignored above.
  const bareLater = invoiceCallbackBody('iso-order-1', 'processing', { id: 2 });
  expect((await post(`/callbacks/${OWN}`, bare, ownKeys)).body).toEqual({ outcome: 'ignored' });
  // The deployment's keys do not open the own-account store's URL.
  const wrongKeys = await post(`/callbacks/${OWN}`, bare, deploymentKeys);
  expect(wrongKeys.status).toBe(403);
  expect(await invoiceItems(A)).toEqual(beforeA);
  expect(await invoiceItems(B)).toEqual(beforeB);

  // The deployment's signed news for B's invoice moves B's order alone.
  expect((await post('/callbacks', forB, deploymentKeys)).body).toEqual({ outcome: 'applied' });
  const polled = async (store: string) =>
    (await harness.api('GET', '/invoices/iso-order-1', { token: as(store, 'storefront') })).body;
  expect((await polled(B)).status).toBe('confirming');
  expect((await polled(A)).status).not.toBe('confirming');
  expect(await invoiceItems(A)).toEqual(beforeA);

  // The own-account store's order is made on its own sandbox under its bare foreign_id, and its news arrives.
  const made = await harness.api('POST', '/checkout', {
    token: as(OWN, 'storefront'),
    body: checkoutBody('iso-order-1'),
  });
  expect(made.status).toBe(201);
  expect((await post(`/callbacks/${OWN}`, bareLater, ownKeys)).body).toEqual({ outcome: 'applied' });
  expect((await polled(OWN)).status).toBe('confirming');
  expect(await invoiceItems(A)).toEqual(beforeA);
});

test("the reconcile job looks every store's open invoices up at that store's account", async () => {
  const paid = await harness.control('POST', `/invoices/${encodeURIComponent(`${A}!iso-order-2`)}/pay`, {
    kind: 'full',
  });
  expect(paid.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, GRACE_SECONDS * 1000 + 100));

  const report = (await harness.stack.runJob('reconcile')) as { failures: number; invoicesChecked: number };

  expect(report.failures).toBe(0);
  expect(report.invoicesChecked).toBeGreaterThanOrEqual(2 * ORDERS);
  const polled = async (store: string) =>
    (await harness.api('GET', '/invoices/iso-order-2', { token: as(store, 'storefront') })).body;
  expect(await polled(A)).toMatchObject({ status: 'paid' });
  expect((await polled(A)).history.at(-1)).toMatchObject({ source: 'reconcile' });
  expect((await polled(B)).status).not.toBe('paid');
}, 120_000);

test("a store sharing the deployment's account has no balances of its own: 409 shared_account", async () => {
  for (const path of ['/balances', '/balances/history?since=2020-01-01T00:00:00Z']) {
    const answer = await harness.api('GET', path, { token: as(A, 'admin') });
    expect({ path, status: answer.status, code: answer.body.error?.code }).toEqual({
      path,
      status: 409,
      code: 'shared_account',
    });
  }
  // The snapshot job keeps one of each account: the deployment's and the own-account store's.
  expect(await harness.stack.runJob('snapshot-balances')).toMatchObject({ accounts: 2 });
  const history = await harness.api('GET', '/balances/history?since=2020-01-01T00:00:00Z', {
    token: as(OWN, 'admin'),
  });
  expect(history.body.data.map((snapshot: { source: string }) => snapshot.source)).toEqual(['scheduled']);
  const own = await harness.api('GET', '/balances?live=true', { token: as(OWN, 'admin') });
  expect(own.status).toBe(200);
  expect((await harness.api('GET', '/balances', { token: 'admin' })).status).toBe(200);
});

test("a store sharing the deployment's account cannot send a payout tied to no order: 409, nothing written or sent", async () => {
  const sent = async () => (await harness.upstreamRequests('/v2/crypto/withdrawal_instant_exchange')).length;
  const refundItems = async (store: string) =>
    (await scanTable(harness.stack)).filter((item) => item.pk.S?.startsWith(`S#${store}#REFUND#`));
  // The own-account store sends one (on its own account), which proves the counts below see a payout.
  const own = await harness.api('POST', '/refunds', {
    token: as(OWN, 'admin'),
    body: refundBody('iso-payout'),
  });
  expect(own.status).toBe(201);
  expect(await refundItems(OWN)).not.toEqual([]);
  const before = { sent: await sent(), items: await refundItems(A) };

  const payout = await harness.api('POST', '/refunds', {
    token: as(A, 'admin'),
    body: refundBody('iso-payout'),
  });

  expect({ status: payout.status, code: payout.body.error?.code }).toEqual({
    status: 409,
    code: 'shared_account',
  });
  expect({ sent: await sent(), items: await refundItems(A) }).toEqual(before);
  // The default store, whose account it is, keeps it.
  const deployment = await harness.api('POST', '/refunds', {
    token: 'admin',
    body: refundBody('iso-payout'),
  });
  expect(deployment.status).toBe(201);
});

test("the default store's admin token does not read a sharing store's transaction by its id", async () => {
  const withdrawals = (await harness.control('GET', '/transactions')).body.withdrawals as Array<{
    id: number;
    foreign_id: string;
  }>;
  const theirs = withdrawals.find((withdrawal) => withdrawal.foreign_id === `${A}!iso-refund-a`);
  const ours = withdrawals.find((withdrawal) => withdrawal.foreign_id === 'iso-payout');
  expect(theirs && ours).toBeDefined();
  const lookup = (id: number, token: string) => harness.api('GET', `/transactions?id=${id}`, { token });

  // A reads its own; the default store reads its own, but not A's, which is answered as an unknown id is.
  expect((await lookup(theirs!.id, as(A, 'admin'))).status).toBe(200);
  expect((await lookup(ours!.id, 'admin')).body).toMatchObject({ foreign_id: 'iso-payout' });
  const leaked = await lookup(theirs!.id, 'admin');
  expect({ status: leaked.status, foreign_id: leaked.body.foreign_id }).toEqual({
    status: 404,
    foreign_id: undefined,
  });
  expect(leaked.body).toEqual((await lookup(999_999_999, 'admin')).body);
});

test("the snapshot job takes every account's snapshot when the deployment's fails, then throws", async () => {
  const history = async (token: string) =>
    (await harness.api('GET', '/balances/history?since=2020-01-01T00:00:00Z', { token })).body.data.length;
  const before = { deployment: await history('admin'), own: await history(as(OWN, 'admin')) };
  // The deployment's sandbox fails every balance read, retries included; the own-account store's answers.
  const fault = await harness.control('POST', '/faults', { path: '/v2/accounts/list', kind: '5xx' });
  expect(fault.status).toBe(201);

  const run = harness.stack.runJob('snapshot-balances');
  await expect(run).rejects.toThrow();
  expect((await harness.control('DELETE', '/faults')).status).toBe(200);

  expect({ deployment: await history('admin'), own: await history(as(OWN, 'admin')) }).toEqual({
    deployment: before.deployment,
    own: before.own + 1,
  });
});
