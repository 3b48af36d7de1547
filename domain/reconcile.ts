import { ProcessingNotFoundError } from '../processing/errors';
import type { InvoiceService } from './invoices';
import type { InvoiceRecord, RefundRecord } from './model';
import type { ProcessingApi } from './ports';
import type { RefundService } from './refunds';
import { isFinal, isInvoiceStatus } from './status';

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
  /** How long after its expiry an invoice without a final status is looked up. */
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
  processing: ProcessingApi,
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
    } else if (isPastExpiry(invoice, now, options.expiryGraceMs)) {
      report.invoicesChecked++;
      await attempt(() => closeOut(invoices, processing, invoice));
    }
  }
  if (report.failures > 0) throw new Error(`Reconciliation sweep: ${report.failures} records failed`);
  return report;
}

function isPastExpiry(invoice: InvoiceRecord, now: number, graceMs: number): boolean {
  const releaseAt = invoice.invoice?.release_at;
  return !!releaseAt && !isFinal(invoice.status) && now >= releaseAt * 1000 + graceMs;
}

async function closeOut(invoices: InvoiceService, processing: ProcessingApi, invoice: InvoiceRecord) {
  try {
    const transaction = await processing.getTransaction({ id: invoice.invoice!.id });
    if (!isInvoiceStatus(transaction.status) || !isFinal(transaction.status)) return;
    await invoices.applyStatus({
      upstreamForeignId: transaction.foreign_id,
      status: transaction.status,
      source: 'reconcile',
      error: transaction.error || undefined,
    });
  } catch (error) {
    if (!(error instanceof ProcessingNotFoundError)) throw error;
  }
}
