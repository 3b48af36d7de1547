// The deposits an invoice's callbacks name, and what their lookups tell (processing/deposits.ts).
import { depositIdsOf, depositNews } from '../../processing/deposits';
import type { TransactionRecord } from '../../processing/wire';

const deposit = (
  id: number,
  amount: string,
  overrides: Partial<TransactionRecord> = {},
): TransactionRecord => ({
  id,
  foreign_id: 'order-1',
  type: 'deposit',
  currency_sent: { currency: 'BTC', amount },
  currency_received: { currency: 'BTC', amount },
  transactions: [],
  fees: [],
  error: '',
  status: 'processing',
  ...overrides,
});

test('the ids a callback names: positive safe integers, each once, at most 20', () => {
  expect(depositIdsOf(undefined)).toBeUndefined();
  expect(depositIdsOf('1,2')).toBeUndefined();
  expect(depositIdsOf([{ id: 0 }, { id: -1 }, { id: 1.5 }, { id: '3' }, null, {}])).toBeUndefined();
  expect(depositIdsOf([{ id: 4 }, { id: 4 }, { id: 2 ** 53 }, { id: 5 }])).toEqual([4, 5]);
  const many = Array.from({ length: 4000 }, (_, index) => ({ id: index + 1 }));
  expect(depositIdsOf(many)).toHaveLength(20);
});

test('deposits of ours are summed; another foreign_id is not ours; currencies that differ tell nothing', () => {
  expect(depositNews([deposit(1, '0.0001'), deposit(2, '0.00020000')], 'order-1')).toEqual({
    payment: { currency: 'BTC', amount: '0.00030000' },
  });
  expect(depositNews([deposit(1, '0.0001', { foreign_id: 'order-2' })], 'order-1')).toEqual({});
  const other = deposit(2, '1', { currency_sent: { currency: 'ETH', amount: '1' } });
  expect(depositNews([deposit(1, '0.0001'), other], 'order-1')).toEqual({});
  expect(depositNews([], 'order-1')).toEqual({});
});

test("a deposit's id that leads to the invoice's own record gives the invoice's news, never a sum of totals", () => {
  const whole = deposit(7, '0.00045900', {
    type: 'invoice',
    status: 'confirmed',
    currency_received: { currency: 'EUR', amount: '25.245' },
  });
  expect(depositNews([whole, whole], 'order-1')).toEqual({
    invoice: {
      status: 'confirmed',
      error: undefined,
      payment: { currency: 'BTC', amount: '0.00045900', remainingAmount: undefined },
      settlement: { currency: 'EUR', net: '25.24500000', fees: [] },
    },
  });
});
