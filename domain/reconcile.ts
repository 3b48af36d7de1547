import type { InvoiceService } from './invoices';
import type { InvoiceRecord, RefundRecord } from './model';
import type { RefundService } from './refunds';
import { isFinal } from './status';

export interface SweepReport {
  refundsChecked: number;
  invoicesChecked: number;
  invoicesAbandoned: number;
  failures: number;
}

export interface SweepOptions {
  now: () => number;
  /** A create still unresolved after this long is given up on (invoices) or looked up (refunds). */
  staleAfterMs: number;
  /** How long after its expiry an invoice without a final status is looked up (timer-less ones: staleAfterMs). */
  expiryGraceMs: number;
  batch: number;
}

/**
 * Refreshes refunds that are not final, closes out invoices the service reports final, and gives up on creates
 * whose outcome stayed unknown. One record's failure does not stop the others; the sweep throws at the end so
 * that the scheduler retries it.
 */
export async function sweep(
  invoices: InvoiceService,
  refunds: RefundService,
  options: SweepOptions,
): Promise<SweepReport> {
  const report: SweepReport = { refundsChecked: 0, invoicesChecked: 0, invoicesAbandoned: 0, failures: 0 };
  const now = options.now();
  const leaseRunning = (record: InvoiceRecord | RefundRecord) =>
    now - record.claimedAt < options.staleAfterMs;
  const attempt = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch {
      report.failures++;
    }
  };

  for (const refund of await refunds.listOpen(options.batch)) {
    if (refund.phase === 'sending' && leaseRunning(refund)) continue;
    report.refundsChecked++;
    await attempt(() => refunds.refresh(refund, 'reconcile'));
  }
  for (const invoice of await invoices.listOpen(options.batch)) {
    if (invoice.phase !== 'sent') {
      if (leaseRunning(invoice)) continue;
      report.invoicesAbandoned++;
      await attempt(() => invoices.abandon(invoice));
    } else if (isDue(invoice, now, options)) {
      report.invoicesChecked++;
      await attempt(() => invoices.refresh(invoice, 'reconcile'));
    }
  }
  if (report.failures > 0) throw new Error(`Reconciliation sweep: ${report.failures} records failed`);
  return report;
}

/** Due for a lookup: expired without a final status, or without a timer and quiet for a while. */
function isDue(invoice: InvoiceRecord, now: number, options: SweepOptions): boolean {
  if (isFinal(invoice.status)) return false;
  const releaseAt = invoice.invoice?.release_at;
  if (releaseAt) return now >= releaseAt * 1000 + options.expiryGraceMs;
  return now - invoice.updatedAt >= options.staleAfterMs;
}
