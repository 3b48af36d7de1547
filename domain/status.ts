import type { InvoiceStatus } from './model';
import { readsCancelled, SERVICE_FAILURES, type CancelFacts } from './outcome';

const INVOICE_RANK: Record<InvoiceStatus, number> = {
  created: 0,
  pending: 1,
  processing: 2,
  confirmed: 3,
  failed: 3,
};

/** Final for invoices and refunds alike; `declined` and `rejected` only ever end a refund's withdrawal. */
export const FINAL_STATUSES: ReadonlySet<string> = new Set([
  'confirmed',
  'failed',
  'cancelled',
  'declined',
  'rejected',
]);

export function isFinal(status: string | null): boolean {
  return status !== null && FINAL_STATUSES.has(status);
}

export function isInvoiceStatus(value: unknown): value is InvoiceStatus {
  // Own keys only: `in` would also take inherited names such as 'constructor' from a signed callback.
  return typeof value === 'string' && Object.hasOwn(INVOICE_RANK, value);
}

/** Status only moves forward: created → pending → processing → confirmed | failed; final states are final. */
export function movesForward(current: string | null, next: string): boolean {
  if (current === null) return true;
  if (isFinal(current)) return false;
  if (isFinal(next)) return true;
  const from = INVOICE_RANK[current as InvoiceStatus];
  const to = INVOICE_RANK[next as InvoiceStatus];
  return from !== undefined && to !== undefined && to > from;
}

/**
 * The service's word for a withdrawal held until another of the account's owners confirms or declines it in its
 * back office; the refund view reads it as `awaiting_approval`.
 */
export const AWAITING_APPROVAL = 'pending';

/**
 * A refund's withdrawal: pending (held for approval) → verifying (the service's compliance check, where it runs one)
 * → processing → confirmed | failed | declined | cancelled | rejected (by that check).
 */
const REFUND_RANK: Record<string, number> = { [AWAITING_APPROVAL]: 1, verifying: 2, processing: 3 };

/**
 * Whether a withdrawal status moves a refund forward: from none to any known one, down REFUND_RANK, and to a final
 * one. A word the service has not documented for withdrawals moves nothing.
 */
export function refundMovesForward(current: string | null, next: string): boolean {
  if (isFinal(current)) return false;
  if (isFinal(next)) return true;
  const to = Object.hasOwn(REFUND_RANK, next) ? REFUND_RANK[next] : undefined;
  if (to === undefined) return false;
  return current === null || to > (REFUND_RANK[current] ?? Number.POSITIVE_INFINITY);
}

/**
 * How long after its last change a final invoice that late money may still reach stays on the sweep's list: money
 * sent as the cancel went through, or just after the timer ran out, may still be confirmed and credited, and the
 * service takes up to 24 hours to confirm a payment.
 */
export const LATE_MONEY_WATCH_MS = 24 * 3_600_000;

interface OpenFacts extends CancelFacts {
  phase: string;
  updatedAt?: number;
  sweptAt?: number;
}

/** A final invoice that late money may still reach: cancelled by the store, or expired with nothing paid. */
export function awaitsLateMoney(record: OpenFacts): boolean {
  return (
    readsCancelled(record) || (record.status === 'failed' && record.error === SERVICE_FAILURES.expiredUnpaid)
  );
}

/**
 * Open records are the sweep's work: a create not yet answered, a claim link not yet closed, a status not yet
 * final, or a final invoice that late money may still reach, until the sweep has looked at it a watch period after
 * its last change (issue 31: a late payment whose callback is lost is never hidden).
 */
export function isOpen(record: OpenFacts): boolean {
  if (record.phase === 'sending' || record.phase === 'unknown' || record.phase === 'claimable') return true;
  if (record.phase !== 'sent') return false;
  if (!isFinal(record.status)) return true;
  return awaitsLateMoney(record) && (record.sweptAt ?? 0) < (record.updatedAt ?? 0) + LATE_MONEY_WATCH_MS;
}
