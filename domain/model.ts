// The domain's own types: what a request asks for, what the store keeps, and what the service's news means here.
// The service's wire shapes live in processing/wire.ts; its adapter maps them to these.
import type { AccountKind } from './ids';
import type { Outbox } from './webhook-model';

export type InvoiceStatus = 'created' | 'pending' | 'processing' | 'confirmed' | 'failed';
export type InvoiceType = 'fill_or_kill' | 'good_until_expired';

/** A status change as the storefront sees it in the invoice's history. */
export interface StatusChange {
  status: string;
  at: number;
  source: 'create' | 'callback' | 'cancel' | 'reconcile' | 'lookup';
}

/**
 * Where a record is in its own life, apart from the service's status:
 * - `sending`: a create is in flight under a lease (`claimedAt`); a crash leaves it until the lease runs out.
 * - `unknown`: the last create may or may not have reached the service; a retry resumes it.
 * - `unsent`: the last create surely never reached the service; nothing was made, and a retry sends it afresh.
 * - `rejected`: the service refused the request; the foreign_id may be used again.
 * - `abandoned`: the sweep gave up on an unknown create and cancelled whatever it may have left upstream.
 * - `sent`: the service answered and the record holds its answer.
 * - `claimable`: a refund waits for its customer to give an address through its claim link; nothing was sent.
 */
export type Phase = 'sending' | 'unknown' | 'unsent' | 'rejected' | 'abandoned' | 'sent' | 'claimable';

/** What invoices and refunds keep alike: one request per foreign_id, sent at most once, and its status since. */
export interface ClaimedRecord<Request, Status extends string = string> {
  foreignId: string;
  version: number;
  phase: Phase;
  /** Never changed in place: another request is another object (the store sends a request it has not seen). */
  request: Request;
  claimedAt: number;
  /** Names the claim that last took the record, so a claim whose write landed though its answer was lost knows it. */
  claimId?: string;
  status: Status | null;
  error: string | null;
  history: StatusChange[];
  createdAt: number;
  updatedAt: number;
  /**
   * The payment service account the record was claimed on, where all its calls and callbacks belong; absent on
   * records made before 0.6.0, which follow their store's account.
   */
  account?: AccountKind;
  /** When the reconciliation sweep last looked at it; orders the sweep's work with `updatedAt`. */
  sweptAt?: number;
  /** Its webhook events not yet handed to the dispatcher, written with the change that made them. */
  outbox?: Outbox;
}

export interface CheckoutRequest {
  foreignId: string;
  amount: string;
  currency: string;
  title: string;
  email: string;
  urlSuccess: string;
  urlFailed: string;
  timer: boolean;
  senderCurrency?: string;
  description?: string;
  endUserReference?: string;
  type?: InvoiceType;
  /** The store's own keys and values, kept with the order and returned as given (keys sorted). */
  metadata?: Record<string, string>;
  /**
   * A keyed digest (domain/hash.ts) of the payer's travel-rule data the checkout gave, never the data: it tells a
   * retry with the same payer from another request, and tells nothing of who paid.
   */
  senderDigest?: string;
}

/** The invoice the service made for a checkout: where and how much the customer pays, and until when. */
export interface InvoiceDetails {
  id: number;
  url: string;
  address: string | null;
  tag: string | null;
  amount: string;
  senderCurrency: string | null;
  senderAmount: string | null;
  /** Epoch seconds, once the service has fixed the rate. */
  fixedAt: number | null;
  /**
   * Epoch seconds at which an unpaid timer invoice runs out: the create's answer, moved later when the service's
   * news extends it (never earlier).
   */
  releaseAt: number | null;
}

/** Unix seconds of every time kept from the service: 2000-01-01T00:00:00Z to 9999-12-31T23:59:59Z (docs/internals.md). */
export const SERVICE_TIME_RANGE = { minSeconds: 946_684_800, maxSeconds: 253_402_300_799 } as const;

/** Whole Unix seconds within SERVICE_TIME_RANGE: a time a record may keep, and every view can write. */
export function isServiceTime(value: unknown): value is number {
  return (
    Number.isSafeInteger(value) &&
    (value as number) >= SERVICE_TIME_RANGE.minSeconds &&
    (value as number) <= SERVICE_TIME_RANGE.maxSeconds
  );
}

/** How the amount received stands against the amount due, both in the currency paid. */
export type Coverage = 'short' | 'exact' | 'over';

/** What the service reports of the customer's payment, in the currency paid. */
export interface Payment {
  currency: string;
  /** Received so far. */
  amount: string;
  /** Still to pay, as the service reported it. */
  remainingAmount?: string;
  // Derived when written (domain/payment.ts), so that the poll shows them without decimal arithmetic.
  /** The amount due in this currency, once known: the fixed quote, or what was received plus what remains. */
  due?: string;
  /** Still owed, never below zero; known once `due` is, or from the service's remaining amount. */
  owed?: string;
  coverage?: Coverage;
  /** Some of it arrived after the invoice was already final, or once its time had run out with nothing paid. */
  late?: boolean;
}

/** A deposit the service reported for an invoice (an entry of a record's `transactions[]`), as the invoice keeps it. */
export interface Deposit {
  /** The service's transaction id: reports of one deposit are merged by it. */
  id: number;
  /** The blockchain transaction id. */
  txid: string;
  amount: string;
  currency: string;
  /** Only grows: older news never takes it back. */
  confirmations: number;
  address: string;
  /** Epoch ms when the invoice first heard of it. */
  seenAt: number;
}

/** A deposit as one report of the service tells it. */
export type ReportedDeposit = Omit<Deposit, 'seenAt'>;

/** What the service credited the merchant for the invoice, and its fees, as its callbacks and lookups report. */
export interface Settlement {
  currency: string;
  /** `currency_received.amount`: credited, net of the fees. */
  net: string;
  /** Summed per currency, sorted by currency. */
  fees: Array<{ currency: string; amount: string }>;
}

/** Deposits an invoice keeps: enough for a payment in many parts, few enough for the item's size. */
export const MAX_DEPOSITS = 10;

export interface InvoiceRecord extends ClaimedRecord<CheckoutRequest, InvoiceStatus> {
  /** Upstream attempt number; attempts after the first carry a `~N` suffix on the service's foreign_id. */
  attempt: number;
  invoice: InvoiceDetails | null;
  payment: Payment | null;
  settlement?: Settlement;
  /** Set when our cancel's answer said it went through, or when its outcome was settled as ours. */
  cancelled: boolean;
  /**
   * When we first asked the service to cancel, written before the request is sent: a `failed` that follows with no
   * money is then read as our cancel, whatever the service's words (domain/outcome.ts). Absent if never asked.
   */
  cancelAskedAt?: number;
  /** The order's refunds, each reserved here before it is sent (domain/refund-bound.ts); oldest first. */
  refunds?: RefundEntry[];
  /**
   * Deposit transaction ids the invoice's callbacks named, first seen first (at most MAX_DEPOSIT_IDS): looked up
   * when the service does not find the invoice by its own id.
   */
  depositIds?: number[];
  /** The most confirmations the service has reported for the payment (see InvoiceNews); absent before any. */
  confirmations?: number;
  /** The deposits the service reported (its `transactions[]`), first seen first (at most MAX_DEPOSITS). */
  deposits?: Deposit[];
  /** `settlement.net` less the refunds that are not failed, kept when either changes; absent with no refunds. */
  refundable?: string;
  /**
   * SHA-256 (base64url) of the invoice's client secret, which opens its public view (domain/customer-secret.ts);
   * never the secret itself. Absent on invoices created before client secrets.
   */
  clientSecretHash?: string;
}

/**
 * A refund as its order keeps it: what it takes from the order's net (in `settlement.currency`), and what the
 * customer receives it in. Only what the order's view shows, so that the invoice item stays small.
 */
export interface RefundEntry {
  foreignId: string;
  debitedAmount: string;
  currency: string;
  /**
   * `pending` (not ended, awaiting approval or a claim too) counts against the order's net until the refund ends, and
   * so does `confirmed`; the released states no longer do.
   */
  state: RefundEntryState;
  createdAt: number;
}

export type RefundEntryState = 'pending' | 'confirmed' | RefundReleased;

/** How a refund ends without its money leaving: its amount is the order's to refund again. */
export type RefundReleased = 'failed' | 'declined' | 'cancelled' | 'claim_expired' | 'claim_cancelled';

/** The withdrawal a refund sends: `senderAmount` of `senderCurrency` leaves the balance, paid out in `receivedCurrency`. */
export interface RefundRequest {
  foreignId: string;
  senderCurrency: string;
  receivedCurrency: string;
  senderAmount: string;
  address: string;
  endUserReference?: string;
}

/**
 * A refund of an order, as the store asked for it: the amount and currency left out take their defaults when the
 * refund is reserved on the order, so a retry of the same request is the same request whatever was refunded since.
 */
export interface OrderRefundRequest {
  foreignId: string;
  invoiceForeignId: string;
  /** In the currency the order was credited in; the most still refundable when absent. */
  debitedAmount?: string;
  /** What the customer receives; the currency they paid in when absent. */
  currency?: string;
  /** Absent for a refund its customer claims through a link, giving the address then (domain/refund-claims.ts). */
  address?: string;
  endUserReference?: string;
}

/** The withdrawal the service made for a refund: what it debited, and what it sends to the address. */
export interface WithdrawalDetails {
  id: number;
  senderAmount: string;
  receivedAmount: string;
}

/**
 * Who receives a refund, for the travel rule (MiCA), as the payment service takes it on a withdrawal
 * (`receiver_type`, `receiver_data`): a natural person, a company (`country` of registration in ISO 3166-1
 * alpha-2), or the store's own wallet. Personal data: it goes to the payment service and nowhere else.
 */
export type Receiver =
  | { type: 'natural'; firstName: string; lastName: string; dateOfBirth: string; email?: string }
  | { type: 'legal'; companyName: string; country: string; email?: string }
  | { type: 'self' };

/**
 * Who pays an invoice, for the travel rule (MiCA), as the payment service takes it on an invoice (`sender_type`,
 * `sender_data`): a natural person or a company, never the store's own wallet. Personal data: it goes to the payment
 * service with the create and is kept nowhere.
 */
export type Sender = Exclude<Receiver, { type: 'self' }>;

/** A payout not tied to an order asks for its withdrawal directly; an order's refund asks the order first. */
export interface RefundRecord extends ClaimedRecord<RefundRequest | OrderRefundRequest> {
  /** An order refund's withdrawal, once reserved on the order and before it is sent; a payout's is its request. */
  sends?: RefundRequest;
  withdrawal: WithdrawalDetails | null;
  /**
   * Who receives it, for the travel rule: kept only while its send may still be made (phase `sending` or
   * `unknown`), for a retry or the sweep's resend; the write that settles the send drops it. Never in a view.
   */
  receiver?: Receiver;
  /** An order refund made without an address: its customer's claim link, open while `phase` is `claimable`. */
  claimLink?: ClaimLink;
}

/** A refund's claim link: its token kept only as a hash, and when it stops working. */
export interface ClaimLink {
  /** SHA-256 (base64url) of the link's token (secrets/customer-secrets.ts derives it); never the token itself. */
  tokenHash: string;
  /** When the link was made: its token is derived from it and the refund's foreign_id. */
  madeAt: number;
  expiresAt: number;
  /** The withdrawal reserved on the order, all but the address the customer gives. */
  reserved: Omit<RefundRequest, 'address'>;
  /** When the store cancelled it; the claim then refuses any address, and the reconcile job closes it. */
  cancelledAt?: number;
  /** How it ended without a send, marked before its amount is released; absent while open and once sent. */
  closed?: 'expired' | 'cancelled';
}

/** The service's answer to a create: the status the new invoice or withdrawal starts at, and its details. */
export interface Created<Details, Status extends string = string> {
  status: Status;
  details: Details;
}

/** What the service says of a record now, by lookup or by callback. `error` is absent when it names none. */
export interface StatusNews {
  status: string;
  error?: string;
}

export interface InvoiceNews extends StatusNews {
  /** The foreign_id the service names the transaction by, as the store knows it; null when it is not the store's. */
  upstreamForeignId?: string | null;
  payment?: Payment;
  settlement?: Settlement;
  /** Transaction ids of the deposits a callback names (`transactions[].id`): the lookups the spec promises. */
  depositIds?: number[];
  /** Epoch seconds at which the service now says the invoice runs out: it extends it once a payment is seen. */
  expiresAt?: number;
  /** The fewest confirmations among the deposits the service reports; the spec never says how many it needs. */
  confirmations?: number;
  /** The deposits themselves (`transactions[]`), bounded. */
  deposits?: ReportedDeposit[];
}

/**
 * What the service holds under a refund's foreign_id. `withdrawal` is there only when it is the withdrawal the
 * refund asked for (same amount, currencies and address), not another one under the same foreign_id.
 */
export interface FoundWithdrawal extends StatusNews {
  withdrawal?: WithdrawalDetails;
}

/**
 * What news from the service did to its record: `applied` when it moved it, `duplicate` when the record already
 * said it, `ignored` when it is older news or of nothing the record keeps.
 */
export type NewsOutcome = 'applied' | 'duplicate' | 'ignored';

export type CallbackEvent =
  | ({ kind: 'invoice'; upstreamForeignId: string } & InvoiceNews)
  | ({ kind: 'withdrawal'; foreignId: string } & StatusNews)
  /** Signed, but of nothing this plugin keeps, or lacking what it would need. */
  | { kind: 'other' };

export interface Balance {
  currency: string;
  type: 'crypto' | 'fiat';
  balance: string;
}

export interface BalanceSnapshot {
  takenAt: number;
  source: 'live' | 'scheduled';
  balances: Balance[];
}

/** A currency pair, as the API's callers and the service both name it. */
export interface PairQuery {
  currency_from: string;
  currency_to: string;
}

export type TransactionQuery = { id: number } | { foreign_id: string };

/** Passed on to the API's callers as the service worded it (rates, pairs, a transaction record); never read here. */
export type ServiceData = object;
