import { log } from '../observability/log';
import { countMetric } from '../observability/metrics';

/**
 * The service did not find an invoice we created by its id: the spec promises only lookups of deposits and
 * withdrawals. Counted (its alarm tells the operator the reconcile job cannot see invoices there), never read as
 * unpaid or expired.
 */
export function invoiceLookupNotFound(foreignId: string): void {
  countMetric('InvoiceLookupNotFound');
  log.warn('the payment service did not find the invoice by its id', { foreign_id: foreignId });
}

/**
 * News the payment service gave for a record that is not the record's: a lookup answered with another foreign_id,
 * or a callback to an account the record was not made on. Counted and logged, never applied.
 */
export function newsMismatch(foreignId: string, reason: 'foreign_id' | 'account'): void {
  countMetric('NewsMismatch');
  log.warn("news from the payment service is not this record's; not applied", {
    foreign_id: foreignId,
    reason,
  });
}
