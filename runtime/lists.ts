import type { InvoiceRecord, RefundRecord } from '../domain/model';
import { DynamoRecordList } from '../store/record-list';
import { table } from './table';

// Apart from runtime/stores.ts, so that only the list functions bundle the list's queries.
export const invoiceList = new DynamoRecordList<InvoiceRecord>(table, 'INVOICE');
export const refundList = new DynamoRecordList<RefundRecord>(table, 'REFUND');
