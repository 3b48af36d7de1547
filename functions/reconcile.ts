import { InvoiceService } from '../domain/invoices';
import { sweep, type SweepReport } from '../domain/reconcile';
import { RefundService } from '../domain/refunds';
import { log } from '../observability/log';
import { numberEnv } from '../runtime/env';
import { processing } from '../runtime/processing';
import { invoiceStore, refundStore } from '../runtime/stores';
import { claimTiming, sweepTiming } from '../runtime/timing';

const invoices = new InvoiceService(invoiceStore, processing, claimTiming);
const refunds = new RefundService(refundStore, processing, claimTiming);
const options = { ...sweepTiming, now: Date.now, batch: numberEnv('RECONCILE_BATCH', 100) };

/** Scheduled: refreshes open refunds and closes out what the service reports final. */
export const handler = async (): Promise<SweepReport> => {
  const report = await sweep(invoices, refunds, options);
  log.info('reconciliation sweep done', { ...report });
  return report;
};
