import type { InvoiceRecord, RefundRecord } from '../domain/model';
import { nextSweepAt } from '../domain/reconcile';
import { isOpen } from '../domain/status';
import { DynamoSnapshotStore } from '../store/snapshot-store';
import { VersionedDynamoStore } from '../store/versioned-store';
import { numberEnv } from './env';
import { table } from './table';
import { outboxGraceMs, sweepTiming } from './timing';

// Pure, settings included: a function's bundle keeps only the stores it uses (the poll's, only the invoices). Reading
// `Date.now` would count as a side effect to esbuild; `() => Date.now()` does not.
export const invoiceStore = /* @__PURE__ */ new VersionedDynamoStore<InvoiceRecord>(
  table,
  'INVOICE',
  isOpen,
  (record) => nextSweepAt(record, sweepTiming),
  outboxGraceMs,
);
export const refundStore = /* @__PURE__ */ new VersionedDynamoStore<RefundRecord>(
  table,
  'REFUND',
  isOpen,
  (record) => nextSweepAt(record, sweepTiming),
  outboxGraceMs,
);
export const snapshotStore = /* @__PURE__ */ new DynamoSnapshotStore(
  table,
  /* @__PURE__ */ numberEnv('SNAPSHOT_RETENTION_DAYS', 90),
);
