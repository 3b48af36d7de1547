// What the service says about an invoice's payment. Apart from invoices.ts so that the poll's bundle, which
// needs only readInvoice, leaves out decimal.js.
import { Decimal } from 'decimal.js';
import type { Payment } from './model';

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;

/** The payment a transaction record or a callback reports in `currency_sent`; none without a readable amount. */
export function paymentOf(
  sent: { currency?: unknown; amount?: unknown; remaining_amount?: unknown } | null | undefined,
): Payment | undefined {
  if (!sent || typeof sent.currency !== 'string' || !isAmount(sent.amount)) return undefined;
  return {
    currency: sent.currency,
    amount: sent.amount,
    remainingAmount: isAmount(sent.remaining_amount) ? sent.remaining_amount : undefined,
  };
}

function isAmount(value: unknown): value is string {
  return typeof value === 'string' && PLAIN_DECIMAL.test(value);
}

/** A payment only grows: more received, less left to pay. Nothing received is no payment. */
export function paysMore(next: Payment, recorded: Payment | null): boolean {
  if (recorded && next.currency !== recorded.currency) return false;
  const leftGrows =
    next.remainingAmount !== undefined &&
    recorded?.remainingAmount !== undefined &&
    new Decimal(next.remainingAmount).gt(recorded.remainingAmount);
  return !leftGrows && new Decimal(next.amount).gt(recorded?.amount ?? 0);
}
