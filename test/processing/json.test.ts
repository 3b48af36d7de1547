import { parseJson } from '../../processing/json';

describe('parseJson', () => {
  it('keeps numeric amounts as exact decimal strings and other numbers as numbers', () => {
    const text =
      '{"id":9007199254740991,"currency_sent":{"currency":"BTC","amount":0.12345678901234567890,"remaining_amount":0},' +
      '"currency_received":{"currency":"USDT","amount":12345678901234567890.5},' +
      '"transactions":[{"id":7,"amount":1e-7,"confirmations":3,"tag":null}],"fees":[{"amount":10.5}],' +
      '"data":{"amount":"10.50000000","fixed_at":1700000000}}';
    expect(parseJson(text)).toEqual({
      id: 9007199254740991,
      currency_sent: { currency: 'BTC', amount: '0.12345678901234567890', remaining_amount: '0.00000000' },
      currency_received: { currency: 'USDT', amount: '12345678901234567890.50000000' },
      transactions: [{ id: 7, amount: '0.00000010', confirmations: 3, tag: null }],
      fees: [{ amount: '10.50000000' }],
      data: { amount: '10.50000000', fixed_at: 1700000000 },
    });
  });

  it('refuses a non-amount number that a JS number would change', () => {
    expect(() => parseJson('{"id":9007199254740993}')).toThrow(RangeError);
  });

  // A token this short would otherwise be expanded digit by digit: 1e500000 into a 500 kB string, the longest
  // into more memory than the process has.
  it.each([
    '1e500000',
    '-1e500000',
    '1e-500000',
    '1E+41',
    `0.${'0'.repeat(40)}1`,
    `1.${'0'.repeat(41)}`,
    '9'.repeat(41),
  ])(
    'refuses the amount %s, whose plain notation needs more than 40 digits on one side of the point',
    (token) => {
      expect(() => parseJson(`{"data":{"balance":${token}}}`)).toThrow(RangeError);
    },
  );

  it.each([
    '1e9000000000000000',
    '-1e-9000000000000000',
    '1e99999999999999999999',
    '1.5e-99999999999999999999',
  ])('refuses the amount %s without expanding it', (token) => {
    expect(() => parseJson(`{"currency_sent":{"amount":${token}}}`)).toThrow(/amount/);
  });

  it('keeps amounts up to 40 digits on either side of the point', () => {
    const whole = '9'.repeat(40);
    const fraction = `0.${'0'.repeat(39)}1`;
    expect(parseJson(`{"amount":${whole},"balance":${fraction},"rate_to":1e39}`)).toEqual({
      amount: `${whole}.00000000`,
      balance: fraction,
      rate_to: `1${'0'.repeat(39)}.00000000`,
    });
  });

  it('reads a long list of integers natively, and finds a number that is not exact at any depth', () => {
    const long = JSON.stringify({ data: Array.from({ length: 200_000 }, (_, i) => i) });
    expect(JSON.stringify(parseJson(long))).toBe(long);
    expect(() => parseJson('{"data":[1,[2,{"id":9007199254740993}]]}')).toThrow(RangeError);
  });

  it('throws on invalid JSON', () => {
    expect(() => parseJson('<html>')).toThrow(SyntaxError);
  });
});
