// When an invoice may be cancelled, and when a failed invoice may be a cancel of ours.
import { ConflictError } from './errors';
import type { InvoiceRecord } from './model';
import { failedOnItsOwn, readsCancelled } from './outcome';
import { isFinal } from './status';

/**
 * Whether a failed invoice may be a cancel of ours: never for one of the service's own failures; for one that reads
 * cancelled (a known cancel text, or no money after a cancel we asked for), or with no reason (the spec gives no
 * text for a cancel); for any other only when our cancel's outcome is unknown.
 */
export function mayBeOurCancel(record: InvoiceRecord, outcomeUnknown: boolean): boolean {
  if (failedOnItsOwn(record.error)) return false;
  return outcomeUnknown || record.error === null || readsCancelled(record);
}

/** Why an invoice may not be cancelled now, if it may not. */
export function cancelRefusal(record: InvoiceRecord): ConflictError | undefined {
  // The customer's money is on its way or in (some of it, even): a cancel now would only strand it.
  if (
    record.phase === 'sent' &&
    (record.status === 'processing' || (!isFinal(record.status) && record.payment))
  ) {
    return new ConflictError(
      'payment_confirming',
      'A payment is being confirmed; the invoice cannot be cancelled',
    );
  }
  if (record.phase === 'sent' && record.status === 'confirmed') {
    return new ConflictError('invoice_paid', 'The invoice is paid; it cannot be cancelled');
  }
  if (record.phase !== 'sent' || isFinal(record.status)) {
    return new ConflictError('invalid_invoice_state', 'Invoice cannot be cancelled in its current state');
  }
  return undefined;
}
