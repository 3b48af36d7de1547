// The deposits an invoice's callbacks name, and what their lookups tell (processing/deposits.ts).
import { MAX_DEPOSITS } from '../../domain/model';
import { depositIdsOf, depositNews } from '../../processing/deposits';
import {
  DEPOSIT_ADDRESS_MAX_BYTES,
  DEPOSIT_CURRENCY_MAX_BYTES,
  depositsOf,
  moneyNews,
  TXID_MAX_BYTES,
} from '../../processing/translate';
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

describe('the deposits a record reports (transactions[]), as an invoice keeps them', () => {
  const entry = (id: number, overrides: Record<string, unknown> = {}) => ({
    id,
    currency: 'BTC',
    transaction_type: 'blockchain',
    type: 'deposit',
    address: 'bc1qaddress',
    tag: null,
    amount: '0.00100000',
    txid: `tx${id}`,
    confirmations: 1,
    ...overrides,
  });

  test('each by its id once, in the order given, with an exact amount', () => {
    expect(depositsOf([entry(2), entry(1, { amount: '0.5' }), entry(2, { confirmations: 9 })])).toEqual([
      { id: 2, txid: 'tx2', amount: '0.00100000', currency: 'BTC', confirmations: 1, address: 'bc1qaddress' },
      { id: 1, txid: 'tx1', amount: '0.50000000', currency: 'BTC', confirmations: 1, address: 'bc1qaddress' },
    ]);
  });

  test('an entry without an id, a txid, a currency or a readable amount is left out', () => {
    expect(depositsOf(undefined)).toBeUndefined();
    expect(
      depositsOf([
        null,
        entry(0),
        entry(1, { txid: '' }),
        entry(2, { txid: 7 }),
        entry(3, { currency: null }),
        entry(4, { amount: 0.1 }),
        entry(5, { amount: '1e3' }),
      ]),
    ).toBeUndefined();
    // Confirmations that are no count read as none; a missing address as empty.
    expect(depositsOf([entry(6, { confirmations: -1, address: undefined })])).toEqual([
      expect.objectContaining({ id: 6, confirmations: 0, address: '' }),
    ]);
  });

  test('bounded: so many entries, and txids, addresses and currency codes as plain words of so many bytes', () => {
    const many = Array.from({ length: 4000 }, (_, index) => entry(index + 1));
    expect(depositsOf(many)).toHaveLength(MAX_DEPOSITS);
    const longest = entry(1, {
      txid: 'f'.repeat(TXID_MAX_BYTES),
      address: 'a'.repeat(DEPOSIT_ADDRESS_MAX_BYTES),
      currency: 'C'.repeat(DEPOSIT_CURRENCY_MAX_BYTES),
    });
    expect(depositsOf([longest])).toEqual([expect.objectContaining({ txid: longest.txid })]);
    // Past a bound, or with other characters, a txid or a currency says nothing to show: the entry is left out.
    for (const overrides of [
      { txid: 'f'.repeat(TXID_MAX_BYTES + 1) },
      { txid: '<script>' },
      { txid: 'a b' },
      { currency: 'C'.repeat(DEPOSIT_CURRENCY_MAX_BYTES + 1) },
      { currency: '\u0001' },
    ])
      expect(depositsOf([entry(2, overrides)])).toBeUndefined();
    // An address that is no plain word is left empty; the deposit is still shown.
    expect(depositsOf([entry(3, { address: 'a'.repeat(DEPOSIT_ADDRESS_MAX_BYTES + 1) })])).toEqual([
      expect.objectContaining({ id: 3, address: '' }),
    ]);
  });

  test('a callback carries them as news, and so do deposit lookups', () => {
    expect(moneyNews({ transactions: [entry(1)] }, 'callback').deposits).toEqual([
      expect.objectContaining({ id: 1, txid: 'tx1' }),
    ]);
    const found = depositNews(
      [
        deposit(11, '0.001', { transactions: [entry(11)] as TransactionRecord['transactions'] }),
        deposit(12, '0.002', { transactions: [entry(12)] as TransactionRecord['transactions'] }),
      ],
      'order-1',
    );
    expect(found.deposits?.map((reported) => reported.txid)).toEqual(['tx11', 'tx12']);
  });
});
