// Eligibility before checkout (issue 43): GET /checkout/options answers the currencies an amount may be paid in, by
// the same minimum the payment service applies when the checkout creates the invoice, from pairs cached per account.
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';

let harness: Harness;
let output: CapturedOutput;
let ownSandbox: Sandbox;
let ownStorefront: string;
const OWN = 'elig-own';
const PAIRS = '/v2/currencies/pairs';
const RATES = '/v2/currencies/rates';
const EVERY_CRYPTO = ['BTC', 'ETH', 'LTC', 'USDT', 'XRP', 'TRX'];

beforeAll(async () => {
  output = captureOutput(); // refused checkouts log warnings; keep the run quiet
  harness = await startHarness();
  ownSandbox = await startSandbox({ apiKey: 'elig-api-key', secretKey: 'elig-secret-key' });
  const made = await harness.api('POST', '/stores', {
    token: 'platform',
    body: {
      id: OWN,
      name: 'Own account',
      processing: { api_key: 'elig-api-key', secret_key: 'elig-secret-key', base_url: ownSandbox.url },
    },
  });
  expect(made.status).toBe(201);
  ownStorefront = made.body.storefront_token;
}, 60_000);
afterAll(async () => {
  await harness.close();
  await ownSandbox.close();
  output.restore();
});

const options = (query: string, token = 'storefront') =>
  harness.api('GET', `/checkout/options?${query}`, { token });
const payCurrencies = (body: { options: Array<{ pay_currency: string }> }) =>
  body.options.map((option) => option.pay_currency);

async function ownSandboxRequests(path: string): Promise<number> {
  const answer = await fetch(`${ownSandbox.url}/_sandbox/requests?path=${encodeURIComponent(path)}`);
  return ((await answer.json()) as { requests: unknown[] }).requests.length;
}

const ownSandboxPairs = () => ownSandboxRequests(PAIRS);

describe('the lists around a minimum', () => {
  // EUR: min_amount 1, min_amount_deposit_with_exchange 5 (docs/sandbox.md); every crypto is an exchange from EUR.
  test('EUR just below the exchange minimum: nothing; at it and above: every crypto, each with its minimum', async () => {
    const below = await options('amount=4.99999999&currency=EUR');
    expect(below.status).toBe(200);
    expect(below.body).toEqual({ amount: '4.99999999', currency: 'EUR', options: [] });

    const at = await options('amount=5&currency=EUR');
    expect(at.status).toBe(200);
    expect(at.body.amount).toBe('5.00000000');
    expect(payCurrencies(at.body)).toEqual(EVERY_CRYPTO);
    for (const option of at.body.options) expect(option.min_amount).toBe('5.00000000');
    // 5 EUR at the sandbox's BTC rate (1 EUR = 0.000018 BTC), rounded up to 8 places.
    expect(at.body.options[0]).toEqual({
      pay_currency: 'BTC',
      min_amount: '5.00000000',
      pay_amount: '0.00009000',
    });

    const above = await options('amount=5.00000001&currency=EUR');
    expect(payCurrencies(above.body)).toEqual(EVERY_CRYPTO);
  });

  // USDT: min_amount 1, min_amount_deposit_with_exchange 5; paid in USDT itself there is no exchange.
  test('an order in a crypto: its own currency from min_amount, the others from the exchange minimum', async () => {
    expect((await options('amount=0.99999999&currency=USDT')).body.options).toEqual([]);
    const at = await options('amount=1&currency=USDT');
    expect(at.body.options).toEqual([
      { pay_currency: 'USDT', min_amount: '1.00000000', pay_amount: '1.00000000' },
    ]);
    expect(payCurrencies((await options('amount=4.99999999&currency=USDT')).body)).toEqual(['USDT']);
    expect(payCurrencies((await options('amount=5&currency=USDT')).body)).toEqual(EVERY_CRYPTO);
  });

  test('the admin token opens it too', async () => {
    expect((await options('amount=5&currency=EUR', 'admin')).status).toBe(200);
  });
});

describe('refusals', () => {
  test('a currency the service does not take: 400 naming currency', async () => {
    const answer = await options('amount=10&currency=XYZ');
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(answer.body.error.fields).toEqual({ currency: expect.stringContaining('XYZ') });
  });

  test.each([
    ['amount=abc&currency=EUR', 'amount'],
    ['amount=-1&currency=EUR', 'amount'],
    ['amount=0&currency=EUR', 'amount'],
    ['amount=1.123456789&currency=EUR', 'amount'],
    ['currency=EUR', 'amount'],
    ['amount=10', 'currency'],
    ['amount=10&currency=eur', 'currency'],
    ['amount=10&currency=EUR&to=BTC', 'to'],
  ])('%s: 400 naming %s', async (query, field) => {
    const answer = await options(query);
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.error.fields)).toEqual([field]);
  });
});

describe('the checkout agrees at the boundary', () => {
  test('below the minimum: 422 naming it; at it: created, as the options said', async () => {
    const below = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('elig-below', { amount: '4.99999999', currency: 'EUR', sender_currency: 'BTC' }),
    });
    expect(below.status).toBe(422);
    expect(below.body.error).toMatchObject({
      code: 'rejected_by_processor',
      message: expect.stringContaining('5.00000000 EUR'),
      minimum: { amount: '5.00000000', currency: 'EUR' },
      fields: { amount: expect.any(String) },
    });

    const at = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('elig-at', { amount: '5', currency: 'EUR', sender_currency: 'BTC' }),
    });
    expect(at.status).toBe(201);
  });

  test('paid in the order currency itself, the minimum named is min_amount', async () => {
    const below = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('elig-usdt-below', { amount: '0.5', currency: 'USDT', sender_currency: 'USDT' }),
    });
    expect(below.status).toBe(422);
    expect(below.body.error.minimum).toEqual({ amount: '1.00000000', currency: 'USDT' });
  });
});

describe('the cache, per payment account', () => {
  test('a warm repeat asks the service nothing; a store on its own account asks its own account', async () => {
    await options('amount=20&currency=USD');
    const before = (await harness.upstreamRequests(PAIRS)).length;
    for (let i = 0; i < 5; i++) expect((await options('amount=20&currency=USD')).status).toBe(200);
    expect((await harness.upstreamRequests(PAIRS)).length).toBe(before);

    // The deployment's account has the USD pairs cached; the own account's store must not be answered from them.
    expect(await ownSandboxPairs()).toBe(0);
    const own = await options('amount=20&currency=USD', ownStorefront);
    expect(own.status).toBe(200);
    expect(payCurrencies(own.body)).toEqual(EVERY_CRYPTO);
    // At least one call per pair: a call retried on a busy machine is asked twice.
    const asked = await ownSandboxPairs();
    expect(asked).toBeGreaterThanOrEqual(EVERY_CRYPTO.length);
    expect((await harness.upstreamRequests(PAIRS)).length).toBe(before);
    await options('amount=20&currency=USD', ownStorefront);
    expect(await ownSandboxPairs()).toBe(asked);
  });
});

describe('GET /pairs and GET /rates', () => {
  test("a store on its own account is answered from its own account's, never from the deployment's cache", async () => {
    const query = '?from=BTC&to=USD';
    expect((await harness.api('GET', `/pairs${query}`, { token: 'storefront' })).status).toBe(200);
    expect((await harness.api('GET', `/rates${query}`, { token: 'storefront' })).status).toBe(200);
    const before = { pairs: await ownSandboxRequests(PAIRS), rates: await ownSandboxRequests(RATES) };

    expect((await harness.api('GET', `/pairs${query}`, { token: ownStorefront })).status).toBe(200);
    expect((await harness.api('GET', `/rates${query}`, { token: ownStorefront })).status).toBe(200);

    expect(await ownSandboxRequests(PAIRS)).toBeGreaterThan(before.pairs);
    expect(await ownSandboxRequests(RATES)).toBeGreaterThan(before.rates);
  });
});
