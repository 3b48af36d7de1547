// The interfaces the domain depends on. Adapters (the processing client, DynamoDB, Secrets Manager) implement them.
import type { BalanceSnapshot, InvoiceRecord, RefundRecord } from './model';
import type {
  Balance,
  CreateInvoiceRequest,
  Invoice,
  PairEntry,
  PairQuery,
  TransactionQuery,
  TransactionRecord,
  Withdrawal,
  WithdrawalRequest,
} from '../processing/types';

export interface ProcessingApi {
  createInvoice(request: CreateInvoiceRequest): Promise<Invoice>;
  cancelInvoice(foreignId: string): Promise<void>;
  /** Sends at most one withdrawal per foreign_id: after an unknown outcome it looks the withdrawal up first. */
  createWithdrawal(request: WithdrawalRequest): Promise<Withdrawal>;
  listBalances(): Promise<Balance[]>;
  rates(query: PairQuery): Promise<PairEntry[]>;
  pairs(query: PairQuery): Promise<PairEntry[]>;
  getTransaction(query: TransactionQuery): Promise<TransactionRecord>;
}

export interface ProcessingKeys {
  apiKey: string;
  secretKey: string;
}

/** Where the processing keys come from; `refresh` bypasses any cache after the service rejects a key. */
export interface KeySource {
  get(): Promise<ProcessingKeys>;
  refresh(): Promise<ProcessingKeys>;
}

/** A record written only with conditional single-item writes: create-if-absent and compare-and-set on `version`. */
export interface VersionedStore<T extends { version: number }> {
  get(key: string): Promise<T | undefined>;
  /** Writes the record only if nothing has the key yet; false when something does. */
  create(record: T): Promise<boolean>;
  /** Replaces the record only if its stored version is `expectedVersion`; false when it moved on. */
  update(record: T, expectedVersion: number): Promise<boolean>;
}

export interface OpenItems<T> {
  /** Records that are not final yet and due for the sweep by `dueBy` (ms), the longest due first. */
  listOpen(limit: number, dueBy?: number): Promise<T[]>;
}

export type InvoiceStore = VersionedStore<InvoiceRecord> & OpenItems<InvoiceRecord>;
export type RefundStore = VersionedStore<RefundRecord> & OpenItems<RefundRecord>;

export interface SnapshotStore {
  put(snapshot: BalanceSnapshot): Promise<void>;
  /** True for one caller at `at` if none was in the `everyMs` before it, however many ask at once. */
  claimLiveSlot(at: number, everyMs: number): Promise<boolean>;
  latest(): Promise<BalanceSnapshot | undefined>;
  since(takenAfter: number, limit: number): Promise<BalanceSnapshot[]>;
}

/** Remembers callback deliveries so a repeated one has no second effect. */
export interface ReceiptStore {
  /** True the first time a receipt id is seen, or when the delivery that claimed it died before finishing. */
  claim(receiptId: string): Promise<boolean>;
  /** Records that the delivery was applied: from now on a repeat is a duplicate for good. */
  complete(receiptId: string): Promise<void>;
  /** Forgets a receipt whose processing failed, so that the retried delivery is applied. */
  release(receiptId: string): Promise<void>;
}
