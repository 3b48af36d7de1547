import type { InvoiceStatus } from './model';

const INVOICE_RANK: Record<InvoiceStatus, number> = {
  created: 0,
  pending: 1,
  processing: 2,
  confirmed: 3,
  failed: 3,
};

export const FINAL_STATUSES: ReadonlySet<string> = new Set(['confirmed', 'failed', 'cancelled']);

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

/** Open records are the sweep's work: a create not yet answered, or a status not yet final. */
export function isOpen(record: { phase: string; status: string | null }): boolean {
  if (record.phase === 'sending' || record.phase === 'unknown') return true;
  return record.phase === 'sent' && !isFinal(record.status);
}
