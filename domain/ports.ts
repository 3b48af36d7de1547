// The interfaces the domain depends on. Adapters (the processing client, DynamoDB, Secrets Manager) implement them.
import type {
  Balance,
  BalanceSnapshot,
  CheckoutRequest,
  Created,
  FoundWithdrawal,
  InvoiceDetails,
  InvoiceNews,
  InvoiceRecord,
  InvoiceStatus,
  PairQuery,
  RefundRecord,
  RefundRequest,
  ServiceData,
  TransactionQuery,
  WithdrawalDetails,
} from './model';

/** The payment service. Every method throws ServiceError (domain/errors.ts) when the service does not do it. */
export interface ProcessingApi {
  /** Creates the checkout's invoice under `upstreamForeignId`, the foreign_id the service knows it by. */
  createInvoice(
    upstreamForeignId: string,
    request: CheckoutRequest,
  ): Promise<Created<InvoiceDetails, InvoiceStatus>>;
  cancelInvoice(upstreamForeignId: string): Promise<void>;
  /** The invoice's status and payment now; undefined when the service has no such invoice. */
  invoiceNews(invoiceId: number): Promise<InvoiceNews | undefined>;
  /** Sends at most one withdrawal per foreign_id: after an unknown outcome it looks the withdrawal up first. */
  createWithdrawal(request: RefundRequest): Promise<Created<WithdrawalDetails>>;
  /** What the service holds under the refund's foreign_id; undefined when nothing. */
  findWithdrawal(request: RefundRequest): Promise<FoundWithdrawal | undefined>;
  listBalances(): Promise<Balance[]>;
  rates(query: PairQuery): Promise<ServiceData[]>;
  pairs(query: PairQuery): Promise<ServiceData[]>;
  /** The transaction record, for the back office's lookup. */
  transaction(query: TransactionQuery): Promise<ServiceData>;
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
  /**
   * Replaces the record only if its stored version is `expectedVersion`; false when it moved on. `previous`, when
   * given, is the record at that version: what it already holds (an index entry that stays) need not be written.
   */
  update(record: T, expectedVersion: number, previous?: T): Promise<boolean>;
}

export interface OpenItems<T> {
  /** Records that are not final yet and due for the sweep by `dueBy` (ms), the longest due first. */
  listOpen(limit: number, dueBy?: number): Promise<T[]>;
}

/** A record's place in the lists, which run newest first and then by foreign_id, descending. */
export interface ListPosition {
  createdAt: number;
  foreignId: string;
}

export interface CreatedQuery {
  /** Only records after this one in the list's order; from the newest when absent. */
  after?: ListPosition;
  /** Created at or after (ms). */
  createdFrom?: number;
  /** Created strictly before (ms). */
  createdBefore?: number;
  limit: number;
}

export interface NewestFirst<T> {
  /** Up to `limit` records created in the range, newest first; `more` when others follow them. */
  listNewest(query: CreatedQuery): Promise<{ records: T[]; more: boolean }>;
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

/** The bearer tokens accepted now, per scope: the current one, and the one it replaced while a rotation overlaps. */
export interface Tokens {
  storefront: readonly string[];
  admin: readonly string[];
}

/** Where the HTTP layer finds the tokens it checks callers against. */
export interface TokenSource {
  get(): Promise<Tokens>;
  /** Looks again, at most once a second: a token that matches none may have just been rotated in. */
  refresh(): Promise<Tokens>;
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
