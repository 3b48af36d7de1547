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
