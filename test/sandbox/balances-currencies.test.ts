import { api, control, useSandbox } from './support';

// Spec 2.3 (balance entry), 2.4 (pair entry), 4.4 to 4.6 and the pair limits of section 8.

const getSandbox = useSandbox();

const SEEDED = {
  BTC: '1.50000000',
  ETH: '20.00000000',
  LTC: '100.00000000',
  USDT: '50000.00000000',
  XRP: '20000.00000000',
  TRX: '100000.00000000',
  EUR: '10000.00000000',
  USD: '25000.00000000',
};

const pair = (operation: 'rates' | 'pairs', body: unknown) =>
  api(getSandbox(), 'POST', `/v2/currencies/${operation}`, body);

describe('2.3 Balance entry (POST /v2/accounts/list)', () => {
  test('one entry per currency, crypto and fiat, seeded with the documented defaults', async () => {
    const answer = await api(getSandbox(), 'POST', '/v2/accounts/list', {});
    expect(answer.status).toBe(200);
    const balances = Object.fromEntries(
      answer.json.data.map((entry: { currency: string; balance: string }) => [entry.currency, entry.balance]),
    );
    expect(balances).toEqual(SEEDED);
  });

  test('currency: the currency code', async () => {
    const { data } = (await api(getSandbox(), 'POST', '/v2/accounts/list', {})).json;
    expect(data.map((entry: { currency: string }) => entry.currency)).toContain('BTC');
  });

  test('type: crypto or fiat', async () => {
    const { data } = (await api(getSandbox(), 'POST', '/v2/accounts/list', {})).json;
    expect(data.find((entry: { currency: string }) => entry.currency === 'ETH').type).toBe('crypto');
    expect(data.find((entry: { currency: string }) => entry.currency === 'EUR').type).toBe('fiat');
  });

  test('balance: decimal string, as set through the control API', async () => {
    await control(getSandbox(), 'POST', '/balances', { currency: 'BTC', balance: '0.12345678' });
    const { data } = (await api(getSandbox(), 'POST', '/v2/accounts/list', {})).json;
    expect(data.find((entry: { currency: string }) => entry.currency === 'BTC').balance).toBe('0.12345678');
  });
});

describe('2.4 Currency pair entry (rates and pairs)', () => {
  test('currency_from: currency, type, min_amount, min_amount_deposit_with_exchange; rates add description', async () => {
    const rates = (await pair('rates', { currency_from: 'BTC', currency_to: 'USD' })).json.data[0];
    expect(rates.currency_from).toEqual({
      currency: 'BTC',
      type: 'crypto',
      min_amount: '0.00010000',
      min_amount_deposit_with_exchange: '0.00050000',
      description: 'Bitcoin',
    });
    const pairs = (await pair('pairs', { currency_from: 'BTC', currency_to: 'USD' })).json.data[0];
    expect(pairs.currency_from).not.toHaveProperty('description');
  });

  test('currency_to: currency, type; rates add description', async () => {
    const rates = (await pair('rates', { currency_from: 'BTC', currency_to: 'EUR' })).json.data[0];
    expect(rates.currency_to).toEqual({ currency: 'EUR', type: 'fiat', description: 'Euro' });
    const pairs = (await pair('pairs', { currency_from: 'BTC', currency_to: 'EUR' })).json.data[0];
    expect(pairs.currency_to).toEqual({ currency: 'EUR', type: 'fiat' });
  });

  test('rate_from: decimal string', async () => {
    const entry = (await pair('rates', { currency_from: 'ETH', currency_to: 'BTC' })).json.data[0];
    expect(entry.rate_from).toBe('1');
  });

  test('rate_to: the price of rate_from units of currency_from in currency_to, from the fixed USD table', async () => {
    const rateTo = async (from: string, to: string) =>
      (await pair('rates', { currency_from: from, currency_to: to })).json.data[0].rate_to;
    expect(await rateTo('BTC', 'USD')).toBe('60000');
    expect(await rateTo('EUR', 'USD')).toBe('1.08');
    expect(await rateTo('USD', 'BTC')).toBe('0.00001666666667');
    expect(await rateTo('TRX', 'BTC')).toBe('0.000001666666667');
  });
});

describe('4.5 / 4.6 rates and pairs requests', () => {
  test.each(['rates', 'pairs'] as const)('%s: success is {data: [one entry]}', async (operation) => {
    const answer = await pair(operation, { currency_from: 'LTC', currency_to: 'USDT' });
    expect(answer.status).toBe(200);
    expect(answer.json.data).toHaveLength(1);
  });

  test.each(['rates', 'pairs'] as const)('%s: missing currencies are named in errors', async (operation) => {
    const answer = await pair(operation, {});
    expect(answer.status).toBe(400);
    expect(answer.json.errors).toEqual({
      currency_from: 'The currency from field is required.',
      currency_to: 'The currency to field is required.',
    });
  });

  test.each(['rates', 'pairs'] as const)(
    '%s: an unsupported currency is named in errors',
    async (operation) => {
      const answer = await pair(operation, { currency_from: 'BTC', currency_to: 'ZZZ' });
      expect(answer.json.errors).toEqual({ currency_to: 'The selected currency to is invalid.' });
    },
  );

  test('a pair of a currency with itself is refused', async () => {
    const answer = await pair('pairs', { currency_from: 'BTC', currency_to: 'BTC' });
    expect(Object.keys(answer.json.errors)).toEqual(['currency_to']);
  });
});

describe('8. Limits: min_amount and min_amount_deposit_with_exchange per currency', () => {
  test.each([
    ['BTC', '0.00010000', '0.00050000'],
    ['ETH', '0.00100000', '0.01000000'],
    ['LTC', '0.01000000', '0.10000000'],
    ['USDT', '1.00000000', '5.00000000'],
    ['XRP', '1.00000000', '10.00000000'],
    ['TRX', '10.00000000', '50.00000000'],
    ['EUR', '1.00000000', '5.00000000'],
    ['USD', '1.00000000', '5.00000000'],
  ])('%s: min_amount %s, min_amount_deposit_with_exchange %s', async (currency, minAmount, withExchange) => {
    const to = currency === 'USD' ? 'EUR' : 'USD';
    const entry = (await pair('pairs', { currency_from: currency, currency_to: to })).json.data[0];
    expect(entry.currency_from).toMatchObject({
      min_amount: minAmount,
      min_amount_deposit_with_exchange: withExchange,
    });
  });
});
