// When an invoice may be cancelled, when a failed invoice may be a cancel of ours, and the notes a cancel writes.
import { ConflictError } from './errors';
import type { InvoiceRecord } from './model';
import type { ClaimedRecords } from './records';
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

/**
 * Notes that we ask for a cancel, before the request is sent, so that the service's news of it, which may come
 * first or alone, reads as our cancel (domain/outcome.ts, `readsCancelled`).
 */
export async function markCancelAsked(
  invoices: ClaimedRecords<InvoiceRecord>,
  seen: InvoiceRecord,
  at: number,
): Promise<number | undefined> {
  let marked = false;
  await invoices.mutate(
    seen.foreignId,
    (current) => {
      const refused = cancelRefusal(current);
      if (refused) throw refused;
      marked = current.cancelAskedAt === undefined;
      return marked ? { ...current, cancelAskedAt: at } : undefined;
    },
    { seen },
  );
  return marked ? at : undefined;
}

/** Takes back the note of a cancel that surely never reached the service: a later `failed` is not ours. */
export async function unmarkCancelAsked(
  invoices: ClaimedRecords<InvoiceRecord>,
  foreignId: string,
  at: number,
): Promise<void> {
  try {
    await invoices.mutate(foreignId, (current) => {
      if (current.cancelAskedAt !== at) return undefined;
      const { cancelAskedAt: _unsent, ...rest } = current;
      return rest;
    });
  } catch {
    // The cancel's own error is the one to answer; a note left reads as a cancel asked, which is safe for money.
  }
}

/** Records our cancel as having gone through. */
export async function markCancelled(
  invoices: ClaimedRecords<InvoiceRecord>,
  record: InvoiceRecord,
  now: number,
): Promise<InvoiceRecord> {
  const updated = await invoices.mutate(record.foreignId, (current) =>
    current.cancelled ? undefined : { ...current, cancelled: true, updatedAt: now },
  );
  return updated ?? invoices.read(record.foreignId);
}
