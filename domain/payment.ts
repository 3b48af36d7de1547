// An invoice's payment as the record keeps it. Apart from invoices.ts so that the poll's bundle, which needs only
// readInvoice, leaves out decimal.js: the arithmetic happens here, when written.
import { Decimal } from './decimal';
import type { Coverage, InvoiceRecord, Payment, Settlement } from './model';

/** A payment only grows: more received, less left to pay. Nothing received is no payment. */
export function paysMore(next: Payment, recorded: Payment | null): boolean {
  if (recorded && next.currency !== recorded.currency) return false;
  const leftGrows =
    next.remainingAmount !== undefined &&
    recorded?.remainingAmount !== undefined &&
    new Decimal(next.remainingAmount).gt(recorded.remainingAmount);
  return !leftGrows && new Decimal(next.amount).gt(recorded?.amount ?? 0);
}

/** Whether the payment is the one recorded: the same currency and amount. */
export function paysSame(next: Payment, recorded: Payment | null): boolean {
  return (
    recorded !== null && next.currency === recorded.currency && new Decimal(next.amount).eq(recorded.amount)
  );
}

/**
 * The payment as the record keeps it: to 8 places, with what is due and still owed in the currency paid where
 * known, and how the two compare. `late`: the invoice was final before this payment grew, or its time had run out
 * with nothing paid.
 */
export function recordedPayment(next: Payment, record: DueFacts, late: boolean): Payment {
  const received = new Decimal(next.amount);
  const remaining = next.remainingAmount === undefined ? undefined : new Decimal(next.remainingAmount);
  // The quote fixes the amount due; without one, the service tells it only while something remains to pay.
  const due = knownDue(next.currency, record) ?? (remaining?.gt(0) ? received.plus(remaining) : undefined);
  // What remains is the service's to say; without its word, it follows from what is due.
  const owed = remaining ?? (due && Decimal.max(due.minus(received), 0));
  return {
    currency: next.currency,
    amount: fixed8(received),
    ...(remaining && { remainingAmount: fixed8(remaining) }),
    ...(due && { due: fixed8(due), coverage: coverage(received, due) }),
    ...(owed && { owed: fixed8(owed) }),
    ...((late || record.payment?.late) && { late: true }),
  };
}

type DueFacts = Pick<InvoiceRecord, 'invoice' | 'payment'> & {
  request?: Pick<InvoiceRecord['request'], 'currency'>;
};

function knownDue(currency: string, { invoice, payment, request }: DueFacts) {
  if (invoice?.senderCurrency === currency && invoice.senderAmount) return new Decimal(invoice.senderAmount);
  // Paid in the order's own currency, with or without a quote: the order's amount is what is due.
  if (invoice && request?.currency === currency) return new Decimal(invoice.amount);
  if (payment?.currency === currency && payment.due) return new Decimal(payment.due);
  return undefined;
}

function coverage(received: Decimal, due: Decimal): Coverage {
  const order = received.cmp(due);
  return order < 0 ? 'short' : order > 0 ? 'over' : 'exact';
}

/** At least 8 fractional digits, as the service writes them, and every digit it gave beyond. */
const fixed8 = (amount: Decimal): string => amount.toFixed(Math.max(8, amount.decimalPlaces()));

/** Whether the service now reports more credited than the record holds, in the same currency. */
export function creditGrows(next: Settlement, recorded: Settlement | undefined): boolean {
  if (!recorded) return new Decimal(next.net).gt(0);
  return next.currency === recorded.currency && new Decimal(next.net).gt(recorded.net);
}
