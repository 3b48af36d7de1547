import middy from '@middy/core';
import { sweep, type SweepReport } from '../domain/reconcile';
import { log } from '../observability/log';
import { countMetric } from '../observability/metrics';
import { remainingMs } from '../runtime/deadline';
import { invocation } from '../runtime/invocation';
import { numberEnv } from '../runtime/env';
import { invoicesFor } from '../runtime/invoices';
import { refundsFor } from '../runtime/refunds';
import { invoiceStore, refundStore } from '../runtime/stores';
import { sweepTiming } from '../runtime/timing';

/** A record's lookup (or cancel) and writes take well under a second from a healthy service; this leaves room. */
const RECORD_RESERVE_MS = 5_000;

const options = {
  ...sweepTiming,
  now: Date.now,
  batch: numberEnv('RECONCILE_BATCH', 100),
  timeLeftMs: () => remainingMs() ?? Infinity,
  recordReserveMs: RECORD_RESERVE_MS,
};

/** Every store's due records, from the one open-items index; each is looked at through its own store's services. */
const stores = {
  dueInvoices: (limit: number, now: number) => invoiceStore.listOpen(limit, now),
  dueRefunds: (limit: number, now: number) => refundStore.listOpen(limit, now),
  invoicesFor,
  refundsFor,
};

/**
 * Scheduled, for every store: refreshes open refunds and closes out what the service reports final. Records whose look failed are
 * counted, and wait their turn to be looked at again: the run itself succeeds, so the scheduler does not repeat it.
 */
export const handler = middy(async (): Promise<SweepReport> => {
  const report = await sweep(stores, options);
  if (report.failures > 0) countMetric('ReconcileLookFailures', report.failures);
  (report.failures > 0 ? log.warn : log.info)('reconciliation sweep done', { ...report });
  return report;
}).use(invocation());
