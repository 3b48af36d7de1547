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

  it('throws on invalid JSON', () => {
    expect(() => parseJson('<html>')).toThrow(SyntaxError);
  });
});
