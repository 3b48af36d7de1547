import type { InvoiceRecord, RefundRecord } from '../domain/model';
import { nextSweepAt } from '../domain/reconcile';
import { DEFAULT_STORE_ID } from '../domain/stores';
import { isOpen } from '../domain/status';
import { DynamoSnapshotStore } from '../store/snapshot-store';
import { VersionedDynamoStore } from '../store/versioned-store';
import { numberEnv } from './env';
import { table } from './table';
import { outboxGraceMs, sweepTiming } from './timing';

// Pure, settings included: a function's bundle keeps only the stores it uses (the poll's, only the invoices). Reading
// `Date.now` would count as a side effect to esbuild; `() => Date.now()` does not. Each is the default store's;
// `forStore` makes another's.
export const invoiceStore = /* @__PURE__ */ new VersionedDynamoStore<InvoiceRecord>(
  table,
  DEFAULT_STORE_ID,
  'INVOICE',
  isOpen,
  (record) => nextSweepAt(record, sweepTiming),
  outboxGraceMs,
);
export const refundStore = /* @__PURE__ */ new VersionedDynamoStore<RefundRecord>(
  table,
  DEFAULT_STORE_ID,
  'REFUND',
  isOpen,
  (record) => nextSweepAt(record, sweepTiming),
  outboxGraceMs,
);
export const snapshotStore = /* @__PURE__ */ new DynamoSnapshotStore(
  table,
  DEFAULT_STORE_ID,
  /* @__PURE__ */ numberEnv('SNAPSHOT_RETENTION_DAYS', 90),
);
