// The interfaces the domain depends on. Adapters (the processing client, DynamoDB, Secrets Manager) implement them.
import type {
  Balance,
  BalanceSnapshot,
  CheckoutRequest,
  ClaimedRecord,
  Created,
  FoundWithdrawal,
  InvoiceDetails,
  InvoiceNews,
  InvoiceRecord,
  InvoiceStatus,
  PairQuery,
  Payment,
  ReportedDeposit,
  Receiver,
  Sender,
  RefundRecord,
  RefundRequest,
  ServiceData,
  TransactionQuery,
  WithdrawalDetails,
} from './model';
import type { Delivery, DeliveryAttempt, WebhookProgress, WebhookSubject } from './webhook-model';
import type { AccountKind, StoreId } from './ids';

/** The payment service. Every method throws ServiceError (domain/errors.ts) when the service does not do it. */
export interface ProcessingApi {
  /**
   * Creates the checkout's invoice under `upstreamForeignId`, the foreign_id the service knows it by; the payer,
   * when given, goes with it for the travel rule.
   */
  createInvoice(
    upstreamForeignId: string,
    request: CheckoutRequest,
    sender?: Sender,
  ): Promise<Created<InvoiceDetails, InvoiceStatus>>;
  cancelInvoice(upstreamForeignId: string): Promise<void>;
  /**
   * The invoice's status and payment now, with the foreign_id the service names it by; undefined when the service
   * has no such invoice.
   */
  invoiceNews(invoiceId: number): Promise<InvoiceNews | undefined>;
  /**
   * What the deposits with these transaction ids tell of the invoice: the invoice's own news when the service
   * answers a deposit's id with the invoice's record, else only the money they brought, summed. A record the
   * service names for another foreign_id is not ours.
   */
  depositNews(depositIds: number[], upstreamForeignId: string): Promise<DepositNews>;
  /**
   * Sends at most one withdrawal per foreign_id: after an unknown outcome it looks the withdrawal up first. The
   * receiver, when given, goes with it for the travel rule.
   */
  createWithdrawal(request: RefundRequest, receiver?: Receiver): Promise<Created<WithdrawalDetails>>;
  /** What the service holds under the refund's foreign_id; undefined when nothing. */
  findWithdrawal(request: RefundRequest): Promise<FoundWithdrawal | undefined>;
  listBalances(): Promise<Balance[]>;
  rates(query: PairQuery): Promise<ServiceData[]>;
  pairs(query: PairQuery): Promise<ServiceData[]>;
  /** The transaction record, for the back office's lookup. */
  transaction(query: TransactionQuery): Promise<ServiceData>;
}

/**
 * A store's accounts at the payment service. Each record is claimed on the store's account of the moment, and every
 * later call for it goes to that account, so that a store's move never splits an order between two (issue 40).
 */
export interface ProcessingAccounts {
  /** The account the store's new records are claimed on, as this container knows the store now. */
  current(): Promise<AccountKind>;
  /** The account its records that name none were made on (before 0.6.0): the shared one if it has moved since. */
  unpinned(): Promise<AccountKind>;
  /** The account a record claimed on `kind` lives on; for a record that names none, the unpinned one. */
  of(kind: AccountKind | undefined): ProcessingApi;
}

export interface DepositNews {
  /** The invoice's record, found through a deposit's id. */
  invoice?: InvoiceNews;
  /** The money the deposits brought, in the one currency they share; a deposit's status is its own. */
  payment?: Payment;
  /** The deposits themselves, each as its own record reports it. */
  deposits?: ReportedDeposit[];
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
  /** Deletes the record only if its stored version is `expectedVersion`; false when it moved on. */
  remove(key: string, expectedVersion: number): Promise<boolean>;
}

/** A record with the store it belongs to, as a reader across every store finds it. */
export interface Owned<T> {
  storeId: StoreId;
  record: T;
}

export interface OpenItems<T> {
  /**
   * Records of every store that are not final yet and due for the sweep by `dueBy` (ms), the longest due first:
   * the sweep's queue is one for all stores.
   */
  listOpen(limit: number, dueBy?: number): Promise<Array<Owned<T>>>;
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

/**
 * Issues each invoice's client secret: the same one every time it is asked for the same invoice, so that a
 * replayed checkout answers it again although only its hash is stored.
 */
export interface CustomerSecrets {
  secretFor(invoice: SecretHolder): Promise<string>;
}

/** What a client secret is issued for: one invoice, made at one time. */
export interface SecretHolder {
  foreignId: string;
  createdAt: number;
}

/** A record with what the dispatcher did with its events so far (none yet: undefined). */
export interface OutboxRead {
  record: ClaimedRecord<unknown>;
  progress: WebhookProgress | undefined;
}

/** A record kind's outbox, as the webhook dispatcher drains it. */
export interface OutboxSource {
  readOutbox(foreignId: string): Promise<OutboxRead | undefined>;
  /**
   * Stores `progress` and drops the events up to its `through` from the outbox of the record as read, only if the
   * record's version and progress are still as read. The version is kept, so that this never makes a concurrent
   * change of the record lose its compare-and-set.
   */
  drainOutbox(read: OutboxRead, progress: WebhookProgress): Promise<boolean>;
}

/**
 * What is due for the webhook dispatcher: a record whose outbox holds events, or a delivery to attempt; each of the
 * store whose item it is.
 */
export type DueWork =
  { storeId: StoreId; record: WebhookSubject; foreignId: string } | { storeId: StoreId; delivery: string };

/** Every store's deliveries: the due list is the deployment's, each delivery and failed list a store's own. */
export interface DeliveryStore {
  /** Up to `limit` items due by `now` (ms), of every store, the longest due first per shard. */
  listDue(now: number, limit: number): Promise<DueWork[]>;
  /** The store's delivery of this id; another store's is not found. */
  get(storeId: StoreId, id: string): Promise<Delivery | undefined>;
  /** Writes the delivery (in its store) only if none has its id; false when one does. */
  create(delivery: Delivery): Promise<boolean>;
  /** Replaces it only if its stored version is `expectedVersion`. */
  update(delivery: Delivery, expectedVersion: number): Promise<boolean>;
  /** Up to `limit` of the store's deliveries that ran out of retries, longest failed first. */
  listFailed(storeId: StoreId, limit: number): Promise<Delivery[]>;
}

/**
 * Asks for dispatcher runs at these times (ms), so that a retry due before the next scheduled run is not late.
 * Never throws: a wake that is lost only makes the retry wait for the schedule.
 */
export interface DispatcherWake {
  at(times: readonly number[]): Promise<void>;
}

/** Sends one signed event to the shop's endpoint; never throws for what the endpoint or the network did. */
export interface WebhookSender {
  send(delivery: Pick<Delivery, 'id' | 'body'>, timeoutMs: number): Promise<Omit<DeliveryAttempt, 'at'>>;
}

/**
 * Each store's sender, to its own endpoint with its own secret; undefined for a store with no endpoint. Throws when
 * the store is not known (or cannot be read): its events then wait.
 */
export interface StoreWebhookSenders {
  get(storeId: StoreId): Promise<WebhookSender | undefined>;
}

/** The count of each store's requests, by second (domain/request-limits.ts). */
export interface RequestLeases {
  /** Adds `slice` to the store's `count`-th count of `second` if it is under `limit`; false when it is not. */
  take(storeId: StoreId, second: number, count: number, slice: number, limit: number): Promise<boolean>;
}
