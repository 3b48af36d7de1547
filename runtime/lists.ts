import type { InvoiceRecord, RefundRecord } from '../domain/model';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { DynamoRecordList } from '../store/record-list';
import { table } from './table';

// Apart from runtime/stores.ts, so that only the list functions bundle the list's queries.
const invoiceList = new DynamoRecordList<InvoiceRecord>(table, DEFAULT_STORE_ID, 'INVOICE');
const refundList = new DynamoRecordList<RefundRecord>(table, DEFAULT_STORE_ID, 'REFUND');

/** A store's invoices, newest first, from its own partitions of the `created` index. */
export const invoiceListFor = (storeId: StoreId) => invoiceList.forStore(storeId);
/** A store's refunds, newest first. */
export const refundListFor = (storeId: StoreId) => refundList.forStore(storeId);
