// Stores as data (issue 33), through the real handlers on the local stack: the platform token makes and changes
// stores, their tokens are answered once and rotate with a grace period, a disabled store's tokens are refused,
// and a deployment from before stores keeps serving its store, `default`, with its old tokens.
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { eventId } from '../../domain/webhooks';
import { routes, type RouteFunctionName } from '../../lib/routes';
import { checkoutBody, refundBody, startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { addFailedDelivery, scanTable } from '../support/table';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
const platform = { token: 'platform' } as const;
const OWN_ACCOUNT = {
  api_key: 'own-api-key-1',
  secret_key: 'own-secret-key-1',
  base_url: 'https://pay.test',
};

// Stores may have webhook endpoints only where the deployment's records make webhook events.
const webhookSecret = newWebhookSecret();
let receiver: WebhookReceiver;

beforeAll(async () => {
  output = captureOutput();
  receiver = await startWebhookReceiver(webhookSecret);
  harness = await startHarness({ webhooks: { url: receiver.url, secret: webhookSecret } });
});
afterAll(async () => {
  await harness.close();
  await receiver.close();
  output.restore();
});

const secretOf = (storeId: string) =>
  harness.stack.secrets.valueOf(`payments-plugin/local/stores/${storeId}`);
const createStore = (body: object) => harness.api('POST', '/stores', { ...platform, body });

describe('the upgrade path: a deployment from before stores', () => {
  /** Written with the default store's tokens before any store exists, as a single-store deployment did. */
  const OLD = { paid: 'upgrade-paid', open: 'upgrade-open', payout: 'upgrade-payout' };
  const OLD_EVENT = eventId('invoice', OLD.open, 0, 1);
  let itemsBefore: string[];

  beforeAll(async () => {
    const storefront = { token: 'storefront' } as const;
    const admin = { token: 'admin' } as const;
    expect(
      (await harness.api('POST', '/checkout', { ...storefront, body: checkoutBody(OLD.paid) })).status,
    ).toBe(201);
    expect(
      (await harness.api('POST', '/checkout', { ...storefront, body: checkoutBody(OLD.open) })).status,
    ).toBe(201);
    expect((await harness.control('POST', `/invoices/${OLD.paid}/pay`, { kind: 'full' })).status).toBe(200);
    await waitFor(
      () => harness.api('GET', `/invoices/${OLD.paid}`, storefront),
      ({ body }) => body.status === 'paid' && body.refundable !== null,
      30_000,
    );
    const orderRefund = {
      foreign_id: `${OLD.paid}-r1`,
      debited_amount: '1',
      address: refundBody('x').address,
    };
    expect(
      (await harness.api('POST', `/invoices/${OLD.paid}/refunds`, { ...admin, body: orderRefund })).status,
    ).toBe(201);
    expect((await harness.api('POST', '/refunds', { ...admin, body: refundBody(OLD.payout) })).status).toBe(
      201,
    );
    // A claim link, for the route that cancels one.
    const claim = { foreign_id: `${OLD.paid}-claim`, debited_amount: '1' };
    expect(
      (await harness.api('POST', `/invoices/${OLD.paid}/refunds`, { ...admin, body: claim })).status,
    ).toBe(201);
    await harness.stack.runJob('snapshot-balances');
    // A webhook delivery that ran out of retries, for the re-send routes (this stack sends no webhooks).
    // The default store's item is the one a deployment from before stores wrote: no store in its key or data.
    await addFailedDelivery(harness.stack, OLD_EVENT, OLD.open);
    itemsBefore = (await scanTable(harness.stack)).map((item) => item.pk.S!);
    // Then stores arrive: one is made, the deployment's data untouched.
    expect((await createStore({ id: 'upgrade-new', name: 'New' })).status).toBe(201);
  }, 60_000);

  test("its items keep their exact keys, with no store's prefix or attribute", async () => {
    expect(itemsBefore.length).toBeGreaterThan(4);
    expect(itemsBefore.filter((pk) => pk.startsWith('S#'))).toEqual([]);
    const items = await scanTable(harness.stack);
    const old = items.filter((item) => itemsBefore.includes(item.pk.S!));
    expect(old.filter((item) => item.store !== undefined)).toEqual([]);
  });

  /** A request for each bearer route that reads or acts on the old data. */
  const REQUESTS: Partial<Record<RouteFunctionName, { path: string; body?: unknown; finds?: string }>> = {
    checkout: { path: '/checkout', body: checkoutBody(OLD.paid), finds: OLD.paid },
    'get-invoice': { path: `/invoices/${OLD.paid}`, finds: OLD.paid },
    'list-invoices': { path: '/invoices?limit=100', finds: OLD.paid },
    'cancel-invoice': { path: `/invoices/${OLD.open}/cancel`, finds: OLD.open },
    'refund-invoice': {
      path: `/invoices/${OLD.paid}/refunds`,
      body: { foreign_id: `${OLD.paid}-r1`, debited_amount: '1', address: refundBody('x').address },
      finds: `${OLD.paid}-r1`,
    },
    'create-refund': { path: '/refunds', body: refundBody(OLD.payout), finds: OLD.payout },
    'get-refund': { path: `/refunds/${OLD.payout}`, finds: OLD.payout },
    'cancel-refund-claim': { path: `/refunds/${OLD.paid}-claim/cancel-claim`, finds: `${OLD.paid}-claim` },
    'list-refunds': { path: '/refunds?limit=100', finds: OLD.payout },
    'export-invoices': { path: '/exports/invoices.csv', finds: OLD.paid },
    'export-refunds': { path: '/exports/refunds.csv', finds: OLD.payout },
    'lookup-transaction': { path: `/transactions?foreign_id=${OLD.payout}` },
    rates: { path: '/rates?from=BTC&to=EUR' },
    pairs: { path: '/pairs?from=BTC&to=EUR' },
    'checkout-options': { path: '/checkout/options?amount=10&currency=EUR' },
    'balance-history': { path: '/balances/history' },
    'current-token': { path: '/tokens/current', finds: '"store_id":"default"' },
    'list-webhook-deliveries': { path: '/webhooks/deliveries?limit=100', finds: OLD_EVENT },
    'resend-webhook': { path: `/webhooks/deliveries/${OLD_EVENT}/resend`, finds: OLD_EVENT },
  };
  const bearerRoutes = routes.filter((route) => route.access === 'storefront' || route.access === 'admin');

  test('the walk below covers every bearer route: one with a request written here, or one with no parameter', () => {
    const bare = bearerRoutes.filter((route) => REQUESTS[route.name] === undefined);
    expect(bare.filter((route) => route.path.includes('{'))).toEqual([]);
  });

  test.each(bearerRoutes.map((route) => [route.name, route] as const))(
    '%s serves the old data as the default store, with the old token of its scope',
    async (name, route) => {
      const request = REQUESTS[name] ?? { path: route.path };
      const token = route.access === 'admin' ? harness.stack.adminToken : harness.stack.storefrontToken;
      const answer = await harness.api(route.method, request.path, { token, body: request.body });
      expect({ name, ok: answer.status >= 200 && answer.status < 300 }).toEqual({ name, ok: true });
      if (request.finds) expect(JSON.stringify(answer.body)).toContain(request.finds);
    },
  );

  test("the platform token, with no Store-Id or with `default`, sees the default store's orders", async () => {
    for (const headers of [{}, { 'store-id': 'default' }] as Array<Record<string, string>>) {
      const answer = await harness.api('GET', `/invoices/${OLD.paid}`, { ...platform, headers });
      expect(answer.status).toBe(200);
      expect(answer.body.foreign_id).toBe(OLD.paid);
    }
  });

  test("the default store is listed and read as the deployment has it, and its settings are not the registry's", async () => {
    const list = await harness.api('GET', '/stores', platform);
    expect(list.body.data[0]).toMatchObject({ id: 'default', status: 'active', account: 'shared' });
    expect((await harness.api('GET', '/stores/default', platform)).body.id).toBe('default');
    for (const [method, path, body] of [
      ['PATCH', '/stores/default', { name: 'Renamed' }],
      ['POST', '/stores/default/tokens/rotate', {}],
      ['POST', '/stores/default/disable', undefined],
    ] as const) {
      const answer = await harness.api(method, path, { ...platform, body });
      expect({ path, status: answer.status, code: answer.body.error?.code }).toEqual({
        path,
        status: 409,
        code: 'default_store',
      });
    }
    expect((await createStore({ id: 'default', name: 'Taken' })).body.error.code).toBe('store_exists');
  });
});

describe('making and changing stores', () => {
  let made: Answer;
  /** What the store's creation answered once or was given: no later answer or item may hold any of them. */
  const madeSecrets = (): string[] => [
    made.body.storefront_token,
    made.body.admin_token,
    made.body.webhook_secret,
    OWN_ACCOUNT.api_key,
    OWN_ACCOUNT.secret_key,
  ];

  beforeAll(async () => {
    made = await createStore({
      id: 'shop-own',
      name: 'Own account',
      webhook_url: 'https://own.test/hooks',
      processing: OWN_ACCOUNT,
    });
  });

  test('a store is made with its tokens and webhook secret answered once; its keys go to its secret alone', async () => {
    expect(made.status).toBe(201);
    expect(made.body.store).toMatchObject({
      id: 'shop-own',
      name: 'Own account',
      status: 'active',
      account: 'own',
      base_url: 'https://pay.test',
      webhook_url: 'https://own.test/hooks',
      callback_url: `${harness.stack.url}/callbacks/shop-own`,
    });
    expect(made.body.webhook_secret).toMatch(/^whsec_/);
    expect(JSON.parse(secretOf('shop-own')!)).toEqual({
      processing_api_key: OWN_ACCOUNT.api_key,
      processing_secret_key: OWN_ACCOUNT.secret_key,
      webhook_secret: made.body.webhook_secret,
    });
    // The table holds digests and settings, never a token, a key or a secret.
    const table = JSON.stringify(await scanTable(harness.stack));
    for (const value of madeSecrets()) {
      expect(table).not.toContain(value);
    }
  });

  test("the functions find the store's account: its own keys and base URL, and its webhook endpoint and secret", async () => {
    // Loaded as a function loads it, once the stack has set the environment.
    const { storeAccounts } = await import('../../runtime/store-accounts');
    const account = await storeAccounts.get('shop-own');
    expect(account).toMatchObject({
      storeId: 'shop-own',
      status: 'active',
      processing: { account: 'own', baseUrl: 'https://pay.test' },
      unpinned: 'own',
      webhook: { url: 'https://own.test/hooks' },
    });
    if (account?.processing.account !== 'own') throw new Error('not its own account');
    expect(await account.processing.keys.get()).toEqual({
      apiKey: OWN_ACCOUNT.api_key,
      secretKey: OWN_ACCOUNT.secret_key,
    });
    expect(await account.webhook!.secrets()).toEqual([made.body.webhook_secret]);
    expect(await storeAccounts.get('default')).toEqual({
      storeId: 'default',
      status: 'active',
      processing: { account: 'shared' },
      unpinned: 'shared',
    });
    expect(await storeAccounts.get('shop-none')).toBeUndefined();
  });

  test('no answer after the creation returns a token, a key or a secret', async () => {
    const answers = [
      await harness.api('GET', '/stores/shop-own', platform),
      await harness.api('GET', '/stores?limit=100', platform),
      await harness.api('PATCH', '/stores/shop-own', {
        ...platform,
        body: { processing: { ...OWN_ACCOUNT, secret_key: 'own-secret-key-2' } },
      }),
      await harness.api('POST', '/stores/shop-own/disable', platform),
      await harness.api('POST', '/stores/shop-own/enable', platform),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200]);
    const text = JSON.stringify(answers.map((answer) => answer.body));
    expect(text).toContain('shop-own');
    for (const value of [...madeSecrets(), 'own-secret-key-2']) {
      expect(text).not.toContain(value);
    }
    // The new keys replaced the old ones; the webhook secret was kept.
    expect(JSON.parse(secretOf('shop-own')!)).toMatchObject({
      processing_secret_key: 'own-secret-key-2',
      webhook_secret: made.body.webhook_secret,
    });
  });

  test('a shared store with an order moves to its own account; the order stays on the shared account', async () => {
    const busy = await createStore({ id: 'shop-busy', name: 'Busy' });
    const checkout = await harness.api('POST', '/checkout', {
      token: busy.body.storefront_token,
      body: checkoutBody('busy-1'),
    });
    expect(checkout.status).toBe(201);
    const moved = await harness.api('PATCH', '/stores/shop-busy', {
      ...platform,
      body: { name: 'Moved', processing: OWN_ACCOUNT },
    });
    expect({ status: moved.status, account: moved.body.account }).toEqual({ status: 200, account: 'own' });
    const order = (await scanTable(harness.stack)).find(({ pk }) => pk.S === 'S#shop-busy#INVOICE#busy-1');
    expect(JSON.parse(order!.data.S!)).toMatchObject({ account: 'shared' });
  });

  test('a store is read and listed; a change keeps what it leaves out, and a null webhook URL clears it', async () => {
    const shared = await createStore({ id: 'shop-shared', name: 'Shared', webhook_url: 'https://s.test/h' });
    expect(shared.body.store).toMatchObject({ account: 'shared', base_url: null, callback_url: null });
    expect(secretOf('shop-shared')).toBe(JSON.stringify({ webhook_secret: shared.body.webhook_secret }));

    const renamed = await harness.api('PATCH', '/stores/shop-shared', {
      ...platform,
      body: { name: 'Renamed' },
    });
    expect(renamed.body).toMatchObject({ name: 'Renamed', webhook_url: 'https://s.test/h' });
    const cleared = await harness.api('PATCH', '/stores/shop-shared', {
      ...platform,
      body: { webhook_url: null },
    });
    expect(cleared.body).toMatchObject({ name: 'Renamed', webhook_url: null });
    expect((await harness.api('GET', '/stores/shop-shared', platform)).body).toEqual(cleared.body);
    expect(Date.parse(cleared.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(cleared.body.created_at));

    // Pages of one: the default store first, then every store once, oldest first.
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer = await harness.api(
        'GET',
        `/stores?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        platform,
      );
      expect(page.status).toBe(200);
      seen.push(...page.body.data.map((store: { id: string }) => store.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(seen[0]).toBe('default');
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.indexOf('shop-own')).toBeLessThan(seen.indexOf('shop-shared'));
  });

  test('an id taken is a 409, an unknown store a 404, and bad input a 400 naming the field, with nothing written', async () => {
    expect((await createStore({ id: 'shop-own', name: 'Again' })).body.error.code).toBe('store_exists');
    expect((await harness.api('GET', '/stores/shop-none', platform)).body.error.code).toBe('store_not_found');
    expect(
      (await harness.api('PATCH', '/stores/shop-none', { ...platform, body: { name: 'X' } })).body.error.code,
    ).toBe('store_not_found');
    // The stores' items, and any of the id the bad requests name: the webhook dispatcher, running meanwhile for the
    // orders of other tests, writes deliveries and drains outboxes, which no store route touches.
    const storeItems = async () =>
      JSON.stringify(
        (await scanTable(harness.stack)).filter(({ pk }) => /^(STORE|TOKEN)#|shop-x/.test(String(pk?.S))),
      );
    const before = await storeItems();
    expect(before).toContain('STORE#shop-own');
    const bad: Array<[object, string]> = [
      [{ id: 'Shop_Upper', name: 'X' }, 'id'],
      [{ id: `s${'x'.repeat(32)}`, name: 'X' }, 'id'],
      [{ id: 'shop-x', name: '' }, 'name'],
      [{ id: 'shop-x', name: 'X', webhook_url: 'ftp://x.test' }, 'webhook_url'],
      [{ id: 'shop-x', name: 'X', webhook_url: 'http://shop.test/hooks' }, 'webhook_url'],
      [{ id: 'shop-x', name: 'X', webhook_url: 'https://user:pass@shop.test/hooks' }, 'webhook_url'],
      [
        { id: 'shop-x', name: 'X', processing: { ...OWN_ACCOUNT, base_url: 'http://pay.test' } },
        'processing',
      ],
      [{ id: 'shop-x', name: 'X', processing: { api_key: 'k' } }, 'processing'],
      [{ id: 'shop-x', name: 'X', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of bad) {
      const answer = await createStore(body);
      expect({ field, status: answer.status, fields: Object.keys(answer.body.error.fields ?? {}) }).toEqual({
        field,
        status: 400,
        fields: expect.arrayContaining([expect.stringMatching(new RegExp(`^${field}`))]),
      });
    }
    const graceTooLong = await harness.api('POST', '/stores/shop-own/tokens/rotate', {
      ...platform,
      body: { grace_seconds: 604_801 },
    });
    expect(Object.keys(graceTooLong.body.error.fields)).toEqual(['grace_seconds']);
    expect(await storeItems()).toBe(before);
    expect(secretOf('shop-x')).toBeUndefined();
  });
});

describe("a store's tokens", () => {
  let tokens: { storefront: string; admin: string };
  const current = (token: string, headers: Record<string, string> = {}) =>
    harness.api('GET', '/tokens/current', { token, headers });

  beforeAll(async () => {
    const made = await createStore({ id: 'shop-tokens', name: 'Tokens' });
    tokens = { storefront: made.body.storefront_token, admin: made.body.admin_token };
  });

  test('each acts for its store, in its scope; the storefront token is refused on admin routes', async () => {
    expect((await current(tokens.storefront)).body).toEqual({ scope: 'storefront', store_id: 'shop-tokens' });
    expect((await current(tokens.admin)).body).toEqual({ scope: 'admin', store_id: 'shop-tokens' });
    expect((await harness.api('GET', '/invoices', { token: tokens.storefront })).status).toBe(403);
    expect((await harness.api('GET', '/invoices', { token: tokens.admin })).status).toBe(200);
    expect((await harness.api('GET', '/stores', { token: tokens.admin })).body.error.code).toBe('forbidden');
  });

  test("the platform token acts for the store in Store-Id; a store's token may not name another store", async () => {
    expect((await current(harness.stack.platformToken)).body).toEqual({
      scope: 'platform',
      store_id: 'default',
    });
    expect((await current(harness.stack.platformToken, { 'store-id': 'shop-tokens' })).body).toEqual({
      scope: 'platform',
      store_id: 'shop-tokens',
    });
    expect((await current(harness.stack.platformToken, { 'store-id': 'shop-none' })).body.error.code).toBe(
      'store_not_found',
    );
    expect((await current(tokens.admin, { 'store-id': 'shop-tokens' })).status).toBe(200);
    for (const [token, storeId] of [
      [tokens.admin, 'default'],
      [tokens.admin, 'shop-own'],
      [harness.stack.adminToken, 'shop-tokens'],
    ]) {
      const answer = await current(token, { 'store-id': storeId });
      expect({ storeId, status: answer.status, code: answer.body.error?.code }).toEqual({
        storeId,
        status: 403,
        code: 'forbidden',
      });
    }
  });

  test('a grace_seconds that is not a JSON integer answers 400 naming it, and rotates nothing', async () => {
    const tokenItems = async () =>
      JSON.stringify(
        (await scanTable(harness.stack)).filter(({ pk }) => /^(STORE|TOKEN)#/.test(String(pk?.S))),
      );
    const before = await tokenItems();
    for (const grace_seconds of ['60', null, 60.5, '6e1', true, [60], { seconds: 60 }, -1]) {
      const answer = await harness.api('POST', '/stores/shop-tokens/tokens/rotate', {
        ...platform,
        body: { grace_seconds },
      });
      expect({ grace_seconds, status: answer.status, fields: answer.body.error?.fields }).toEqual({
        grace_seconds,
        status: 400,
        fields: { grace_seconds: expect.any(String) },
      });
      expect(JSON.stringify(answer.body)).not.toMatch(/_token/);
    }
    expect(await tokenItems()).toBe(before);
    expect((await current(tokens.storefront)).body).toEqual({ scope: 'storefront', store_id: 'shop-tokens' });
    expect((await current(tokens.admin)).body).toEqual({ scope: 'admin', store_id: 'shop-tokens' });
  });

  test('a rotation answers new tokens once; the previous ones work through the grace period, then 401', async () => {
    const first = await harness.api('POST', '/stores/shop-tokens/tokens/rotate', {
      ...platform,
      body: { grace_seconds: 3_600 },
    });
    expect(first.status).toBe(200);
    const expiresAt = Date.parse(first.body.previous_tokens_expire_at);
    expect(expiresAt).toBeGreaterThan(Date.now() + 3_000_000);
    const rotated = { storefront: first.body.storefront_token, admin: first.body.admin_token };
    expect(rotated.admin).not.toBe(tokens.admin);
    for (const token of [tokens.storefront, tokens.admin, rotated.storefront, rotated.admin]) {
      expect((await current(token)).status).toBe(200);
    }
    // A second rotation with no grace ends the tokens before it at once, and those of the first too.
    const second = await harness.api('POST', '/stores/shop-tokens/tokens/rotate', {
      ...platform,
      body: { grace_seconds: 0 },
    });
    for (const token of [tokens.storefront, tokens.admin, rotated.storefront, rotated.admin]) {
      const answer = await current(token);
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
        status: 401,
        code: 'unauthorized',
      });
    }
    tokens = { storefront: second.body.storefront_token, admin: second.body.admin_token };
    expect((await current(tokens.admin)).body.store_id).toBe('shop-tokens');
    expect(JSON.stringify((await harness.api('GET', '/stores/shop-tokens', platform)).body)).not.toContain(
      tokens.admin,
    );
  });

  test('a short grace period ends on its own: the previous token turns to 401', async () => {
    const rotation = await harness.api('POST', '/stores/shop-tokens/tokens/rotate', {
      ...platform,
      body: { grace_seconds: 1 },
    });
    const previous = tokens.storefront;
    tokens = { storefront: rotation.body.storefront_token, admin: rotation.body.admin_token };
    await waitFor(
      () => current(previous),
      (answer) => answer.status === 401,
      10_000,
    );
    expect((await current(tokens.storefront)).status).toBe(200);
  });

  test('a disabled store answers 403 store_disabled to its tokens and to the platform acting for it; enabled, it works again', async () => {
    const disabled = await harness.api('POST', '/stores/shop-tokens/disable', platform);
    expect(disabled.body.status).toBe('disabled');
    expect((await harness.api('POST', '/stores/shop-tokens/disable', platform)).body.status).toBe('disabled');
    for (const [token, headers] of [
      [tokens.storefront, {}],
      [tokens.admin, {}],
      [harness.stack.platformToken, { 'store-id': 'shop-tokens' }],
    ] as const) {
      const answer = await current(token, headers);
      expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
        status: 403,
        code: 'store_disabled',
      });
    }
    expect((await harness.api('GET', '/balances/history', { token: tokens.admin })).status).toBe(403);
    // The store itself is still read and listed by the platform, and the default store is untouched.
    expect((await harness.api('GET', '/stores/shop-tokens', platform)).body.status).toBe('disabled');
    expect((await current(harness.stack.adminToken)).status).toBe(200);

    expect((await harness.api('POST', '/stores/shop-tokens/enable', platform)).body.status).toBe('active');
    expect((await current(tokens.admin)).body).toEqual({ scope: 'admin', store_id: 'shop-tokens' });
    expect((await harness.api('GET', '/balances/history', { token: tokens.storefront })).status).toBe(403);
  });
});
