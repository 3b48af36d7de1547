// The payment as the record keeps it: what is due, still owed and how the two compare, worked out when written.
import type { InvoiceDetails, Payment } from '../../domain/model';
import { invoiceOutcome } from '../../domain/outcome';
import { recordedPayment } from '../../domain/payment';

const quoted = {
  invoice: { senderCurrency: 'BTC', senderAmount: '0.00046000' } as InvoiceDetails,
  payment: null,
};
const unquoted = { invoice: { senderCurrency: null, senderAmount: null } as InvoiceDetails, payment: null };
const paid = (amount: string, remainingAmount?: string): Payment => ({
  currency: 'BTC',
  amount,
  remainingAmount,
});

test.each([
  ['exactly the quote', '0.00046', undefined, { coverage: 'exact', due: '0.00046000', owed: '0.00000000' }],
  ['more than the quote', '0.0005', undefined, { coverage: 'over', owed: '0.00000000' }],
  ['less than the quote', '0.0002', undefined, { coverage: 'short', owed: '0.00026000' }],
  ['less, and the service says what remains', '0.0002', '0.00026', { coverage: 'short', owed: '0.00026000' }],
])('against a quote: %s', (_name, amount, remaining, expected) => {
  expect(recordedPayment(paid(amount, remaining), quoted, false)).toMatchObject(expected);
});

test('without a quote, the amount due is known only while something remains', () => {
  expect(recordedPayment(paid('0.0002', '0.00026'), unquoted, false)).toMatchObject({
    due: '0.00046000',
    owed: '0.00026000',
    coverage: 'short',
  });
  const allPaid = recordedPayment(paid('0.0005', '0'), unquoted, false);
  expect(allPaid).toMatchObject({ owed: '0.00000000' });
  expect(allPaid.due).toBeUndefined();
  expect(allPaid.coverage).toBeUndefined();
});

test('a due amount once learnt is kept for the next payment in that currency', () => {
  const first = recordedPayment(paid('0.0002', '0.00026'), unquoted, false);
  const topUp = recordedPayment(paid('0.0005', '0'), { invoice: unquoted.invoice, payment: first }, false);
  expect(topUp).toMatchObject({ due: '0.00046000', coverage: 'over' });
});

test('late once, late for good', () => {
  const late = recordedPayment(paid('0.0001'), quoted, true);
  expect(late.late).toBe(true);
  expect(recordedPayment(paid('0.0002'), { ...quoted, payment: late }, false).late).toBe(true);
  expect(recordedPayment(paid('0.0002'), quoted, false).late).toBeUndefined();
});

test('amounts keep every digit the service gave, and at least 8', () => {
  expect(recordedPayment(paid('0.000460001'), quoted, false)).toMatchObject({
    amount: '0.000460001',
    coverage: 'over',
  });
  expect(recordedPayment(paid('1'), quoted, false).amount).toBe('1.00000000');
});

describe('paid in the order’s own currency, with no quote (no sender_currency at checkout)', () => {
  // An order of 0.00046 BTC: what is due in BTC is the order's amount, so an overpayment shows.
  const ownCurrency = {
    invoice: { senderCurrency: null, senderAmount: null, amount: '0.00046000' } as InvoiceDetails,
    payment: null,
    request: { currency: 'BTC' },
  };

  test.each([
    ['more', '0.0005', 'over'],
    ['exactly', '0.00046', 'exact'],
    ['less', '0.0002', 'short'],
  ])('%s than the order: %s', (_name, amount, coverage) => {
    expect(recordedPayment(paid(amount, '0'), ownCurrency, false)).toMatchObject({
      due: '0.00046000',
      coverage,
    });
  });

  test('the outcome is paid_over', () => {
    const payment = recordedPayment(paid('0.0005'), ownCurrency, false);
    const outcome = invoiceOutcome({
      phase: 'sent',
      status: 'confirmed',
      error: null,
      cancelled: false,
      payment,
    });
    expect(outcome).toMatchObject({ status: 'paid', exception: 'paid_over' });
  });

  test('paid in another currency, nothing tells what was due: no guess', () => {
    const other = { ...ownCurrency, request: { currency: 'EUR' } };
    expect(recordedPayment(paid('0.0005', '0'), other, false).coverage).toBeUndefined();
  });
});

test('what is due and owed keep every digit of an 18-decimal token', () => {
  const token = { invoice: { senderCurrency: null, senderAmount: null } as InvoiceDetails, payment: null };
  const recorded = recordedPayment(
    { currency: 'ETH', amount: '1000.123456789012345678', remainingAmount: '0.000000000000000001' },
    token,
    false,
  );
  expect(recorded).toMatchObject({ due: '1000.123456789012345679', owed: '0.000000000000000001' });
});
