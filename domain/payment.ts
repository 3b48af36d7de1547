// What the service says about an invoice's payment. Apart from invoices.ts so that the poll's bundle, which
// needs only readInvoice, leaves out decimal.js.
import { Decimal } from 'decimal.js';
import type { Payment } from './model';

/** A payment only grows: more received, less left to pay. Nothing received is no payment. */
export function paysMore(next: Payment, recorded: Payment | null): boolean {
  if (recorded && next.currency !== recorded.currency) return false;
  const leftGrows =
    next.remainingAmount !== undefined &&
    recorded?.remainingAmount !== undefined &&
    new Decimal(next.remainingAmount).gt(recorded.remainingAmount);
  return !leftGrows && new Decimal(next.amount).gt(recorded?.amount ?? 0);
}
