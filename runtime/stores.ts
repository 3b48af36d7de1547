import type { InvoiceRecord, RefundRecord } from '../domain/model';
import { nextSweepAt } from '../domain/reconcile';
import { isOpen } from '../domain/status';
import { DynamoReceiptStore } from '../store/receipt-store';
import { DynamoSnapshotStore } from '../store/snapshot-store';
import { VersionedDynamoStore } from '../store/versioned-store';
import { numberEnv } from './env';
import { table } from './table';
import { sweepTiming } from './timing';

export const invoiceStore = new VersionedDynamoStore<InvoiceRecord>(table, 'INVOICE', isOpen, (record) =>
  nextSweepAt(record, sweepTiming),
);
export const refundStore = new VersionedDynamoStore<RefundRecord>(table, 'REFUND', isOpen, (record) =>
  nextSweepAt(record, sweepTiming),
);
export const snapshotStore = new DynamoSnapshotStore(table, numberEnv('SNAPSHOT_RETENTION_DAYS', 90));
export const receiptStore = new DynamoReceiptStore(table, numberEnv('CALLBACK_RECEIPT_DAYS', 30), Date.now);
