import type {
  Balance,
  BalanceSnapshot,
  InvoiceRecord,
  RefundEntry,
  RefundRecord,
  StatusChange,
} from '../domain/model';
import {
  invoiceOutcome,
  refundRefusal,
  type InvoiceException,
  type InvoiceStatusName,
  type RefundRefusal,
} from '../domain/outcome';
import { isOrderRefund, withdrawalOf } from '../domain/refund-sends';
import { AWAITING_APPROVAL, isFinal } from '../domain/status';
import { Decimal } from '../domain/decimal';
import { DEFAULT_EXPLORER_URLS, explorerUrl, type ExplorerTemplates } from '../domain/explorers';
import type { TravelRule } from '../domain/stores';
import { UnrenderableRecordError } from './errors';

// The shapes of every answer, as exported types so that the OpenAPI document can mirror them. Times are ISO 8601
// UTC with milliseconds; amounts are decimal strings with 8 fractional digits.

export interface InvoiceView {
  foreign_id: string;
  status: InvoiceStatusName;
  /** True once `status` can no longer change; a late payment may still set `exception`. */
  final: boolean;
  exception: InvoiceException | null;
  /** The service's own words when `status` is `failed`; else null. */
  failure_message: string | null;
  title: string;
  /** The order's amount, in `currency`: what the store asked for. */
  amount: string;
  currency: string;
  metadata: Record<string, string>;
  /** The deposits the service reported, first seen first: each blockchain transaction and its explorer link. */
  payments: PaymentView[];
  /** The service's id and payment page for this invoice, once created. */
  processor_invoice_id: number | null;
  payment_url: string | null;
  /** What the customer pays: in `pay_currency`, to `pay_address` (and `pay_tag`), once known. */
  pay_currency: string | null;
  pay_amount: string | null;
  pay_address: string | null;
  pay_tag: string | null;
  /** Received from the customer so far, and still owed, in `pay_currency`. */
  paid_amount: string | null;
  owed_amount: string | null;
  /** What the service credited the store, net of its fees, in `net_currency`; null until it reports a credit. */
  net_amount: string | null;
  net_currency: string | null;
  fees: Array<{ currency: string; amount: string }>;
  /** When the quote behind `pay_amount` was fixed. */
  fixed_at: string | null;
  expires_at: string | null;
  /** Counted when answered; null without a timer or once final. */
  seconds_left: number | null;
  history: Array<{ service_status: string; at: string; source: StatusChange['source'] }>;
  /** The order's refunds, oldest first: what each takes from `net_amount`, and what the customer receives it in. */
  refunds: Array<{
    foreign_id: string;
    debited_amount: string;
    debited_currency: string;
    currency: string;
    status: RefundEntry['state'];
    created_at: string;
  }>;
  /** What is left to refund, in `net_currency`; null while the order cannot be refunded. */
  refundable: { amount: string; currency: string } | null;
  /** Why `refundable` is null, by the refund route's own rule; null when it is not. */
  not_refundable_reason: RefundRefusal | null;
  created_at: string;
  updated_at: string;
}

/** One deposit of the customer's: `explorer_url` is null for a currency without an explorer template. */
export interface PaymentView {
  txid: string;
  amount: string;
  currency: string;
  confirmations: number;
  address: string;
  explorer_url: string | null;
  /** When this plugin first heard of it. */
  seen_at: string;
}

/** The checkout's answer: the invoice view and the secret that opens the customer's view of it. */
export interface CheckoutView extends InvoiceView {
  /** For the customer's browser (the widget); null for an invoice whose secret cannot be issued again. */
  client_secret: string | null;
}

/**
 * What the customer's browser may see of its invoice, with its client secret: what to pay, where, until when, and
 * how it stands. No e-mail, metadata, history, fees or the service's ids.
 */
/** The invoice view's fields the customer's view repeats as they are; its schema picks the same ones. */
export const CUSTOMER_VIEW_FIELDS = [
  'foreign_id',
  'status',
  'final',
  'exception',
  'title',
  'amount',
  'currency',
  'pay_currency',
  'pay_amount',
  'paid_amount',
  'owed_amount',
  'pay_address',
  'pay_tag',
  'payment_url',
  'payments',
  'expires_at',
  'seconds_left',
] as const satisfies ReadonlyArray<keyof InvoiceView>;

export type PublicInvoiceView = Pick<InvoiceView, (typeof CUSTOMER_VIEW_FIELDS)[number]> & {
  /** A wallet link (BIP 21 style) for what is still owed, where the currency has a scheme; null once final. */
  payment_uri: string | null;
  /** What one unit of `pay_currency` costs in `currency` at this invoice's price, rounded; null without one. */
  rate: string | null;
  /** The fewest confirmations the service reported among the payment's deposits; null before it reported any. */
  confirmations: number | null;
  url_success: string;
  url_failed: string;
};

export interface RefundView {
  foreign_id: string;
  /** The order refunded; null for a payout tied to no order. */
  invoice_foreign_id: string | null;
  /**
   * The service's withdrawal status, but `awaiting_approval` for its `pending` (held for an owner's approval);
   * `sending` before its answer, `rejected` when it refused; for a claim link, `awaiting_claim` until the customer
   * gives an address, `claim_expired` or `claim_cancelled` if none came.
   */
  status: string;
  final: boolean;
  /** The service's reason for a rejected, failed, declined or cancelled refund; else null. */
  failure_message: string | null;
  /** What the customer receives, in `currency`: the service's figure, once it answered. */
  amount: string | null;
  currency: string | null;
  /** What leaves the store's balance, in `debited_currency`; null until an order's refund is reserved. */
  debited_amount: string | null;
  debited_currency: string | null;
  /** Null for a claim link until its customer gives one. */
  address: string | null;
  transaction_id: number | null;
  /** The link the customer claims the refund with, while it is open; only where the route can derive it. */
  claim_url: string | null;
  /** When an unclaimed link stops working; null for a refund made with its address. */
  claim_expires_at: string | null;
  history: Array<{ status: string; at: string; source: StatusChange['source'] }>;
  created_at: string;
  updated_at: string;
}

export interface SnapshotView {
  taken_at: string;
  source: BalanceSnapshot['source'];
  balances: Balance[];
}

/**
 * As toISOString writes it, here by hand for years 1000 to 9999: every invoice view has five times in it, and the
 * poll is the hot path. A time past JavaScript's dates, or none at all, makes the record unrenderable, checked only
 * off the fast path.
 */
export function iso(ms: number, field: string): string {
  const date = new Date(ms);
  const year = date.getUTCFullYear();
  if (!(year >= 1000 && year <= 9999)) {
    if (Number.isNaN(year)) throw new UnrenderableRecordError(field);
    return date.toISOString();
  }
  const millis = date.getUTCMilliseconds();
  const time = `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
  return `${year}-${two(date.getUTCMonth() + 1)}-${two(date.getUTCDate())}T${time}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`;
}

const two = (n: number): string => (n < 10 ? `0${n}` : `${n}`);
const isoFromSeconds = (seconds: number | null | undefined, field: string): string | null =>
  typeof seconds === 'number' ? iso(seconds * 1000, field) : null;

/** What the storefront polls; only `seconds_left` depends on the time it is asked. */
export function invoiceView(
  record: InvoiceRecord,
  nowMs: number,
  explorers: ExplorerTemplates = DEFAULT_EXPLORER_URLS,
): InvoiceView {
  const { invoice, payment, settlement, request } = record;
  const outcome = invoiceOutcome(record);
  const refusal = refundRefusal(record);
  const payCurrency = invoice?.senderCurrency ?? payment?.currency ?? null;
  const payAmount = invoice?.senderAmount ?? payment?.due ?? null;
  const releaseAt = invoice?.releaseAt ?? null;
  return {
    foreign_id: record.foreignId,
    status: outcome.status,
    final: outcome.final,
    exception: outcome.exception,
    failure_message: outcome.failureMessage,
    title: request.title,
    amount: invoice?.amount ?? request.amount,
    currency: request.currency,
    metadata: request.metadata ?? {},
    payments: (record.deposits ?? []).map((deposit) => ({
      txid: deposit.txid,
      amount: deposit.amount,
      currency: deposit.currency,
      confirmations: deposit.confirmations,
      address: deposit.address,
      explorer_url: explorerUrl(explorers, deposit.currency, deposit.txid),
      seen_at: iso(deposit.seenAt, 'payments.seen_at'),
    })),
    processor_invoice_id: invoice?.id ?? null,
    payment_url: invoice?.url ?? null,
    pay_currency: payCurrency,
    pay_amount: payAmount,
    pay_address: invoice?.address ?? null,
    pay_tag: invoice?.tag ?? null,
    paid_amount: payment?.amount ?? (payCurrency === null ? null : ZERO),
    owed_amount: payment ? (payment.owed ?? null) : payAmount,
    net_amount: settlement?.net ?? null,
    net_currency: settlement?.currency ?? null,
    fees: settlement?.fees ?? [],
    fixed_at: isoFromSeconds(invoice?.fixedAt, 'fixed_at'),
    expires_at: isoFromSeconds(releaseAt, 'expires_at'),
    seconds_left:
      releaseAt === null || outcome.final ? null : Math.max(0, releaseAt - Math.floor(nowMs / 1000)),
    history: record.history.map(({ status, at, source }) => ({
      service_status: status,
      at: iso(at, 'history.at'),
      source,
    })),
    // Every refund was reserved against the settlement. Oldest first: a refund retried after a refusal keeps the
    // time it was first asked for, though it is reserved again after the others.
    refunds: (settlement ? [...(record.refunds ?? [])].sort(byCreatedAt) : []).map((entry) => ({
      foreign_id: entry.foreignId,
      debited_amount: entry.debitedAmount,
      debited_currency: settlement!.currency,
      currency: entry.currency,
      status: entry.state,
      created_at: iso(entry.createdAt, 'refunds.created_at'),
    })),
    refundable:
      settlement && refusal === undefined
        ? { amount: record.refundable ?? settlement.net, currency: settlement.currency }
        : null,
    not_refundable_reason: refusal ?? null,
    created_at: iso(record.createdAt, 'created_at'),
    updated_at: iso(record.updatedAt, 'updated_at'),
  };
}

const ZERO = '0.00000000';

const byCreatedAt = (a: RefundEntry, b: RefundEntry) => a.createdAt - b.createdAt;

export function publicInvoiceView(
  record: InvoiceRecord,
  nowMs: number,
  explorers: ExplorerTemplates = DEFAULT_EXPLORER_URLS,
): PublicInvoiceView {
  const view = invoiceView(record, nowMs, explorers);
  const shown = Object.fromEntries(CUSTOMER_VIEW_FIELDS.map((field) => [field, view[field]]));
  return {
    ...(shown as Pick<InvoiceView, (typeof CUSTOMER_VIEW_FIELDS)[number]>),
    payment_uri: view.final ? null : paymentUri(view),
    rate: rateOf(view),
    confirmations: record.confirmations ?? null,
    url_success: record.request.urlSuccess,
    url_failed: record.request.urlFailed,
  };
}

/**
 * The price of one unit of the currency paid in, in the order's currency: to cents from 1 up, else to four
 * significant digits, so that a cheap coin's rate is not rounded to nothing.
 */
function rateOf({ amount, currency, pay_amount, pay_currency }: InvoiceView): string | null {
  if (pay_amount === null || pay_currency === null || pay_currency === currency) return null;
  const paid = new Decimal(pay_amount);
  if (paid.lte(0)) return null;
  const rate = new Decimal(amount).div(paid);
  return rate.gte(1) ? rate.toFixed(2) : rate.toSignificantDigits(4).toFixed();
}

/** The URI schemes of the currencies whose wallets read `<scheme>:<address>?amount=<decimal>`. */
const URI_SCHEMES: Readonly<Record<string, string>> = {
  BTC: 'bitcoin',
  LTC: 'litecoin',
  BCH: 'bitcoincash',
  DOGE: 'dogecoin',
};

function paymentUri({ pay_currency, pay_address, pay_tag, owed_amount }: InvoiceView): string | null {
  const scheme = pay_currency === null ? undefined : URI_SCHEMES[pay_currency];
  // A tag the URI cannot carry would send money that nobody can match to the invoice.
  if (!scheme || pay_address === null || pay_tag !== null) return null;
  // Trailing zeros dropped as text, so that the amount never passes through a float.
  const amount = owed_amount?.includes('.') ? owed_amount.replace(/0+$/, '').replace(/\.$/, '') : owed_amount;
  const owes = amount && /[1-9]/.test(amount);
  return owes ? `${scheme}:${pay_address}?amount=${amount}` : `${scheme}:${pay_address}`;
}

/** Bumped whenever the invoice view's shape changes, so that no ETag from before answers 304 after. */
const VIEW_REVISION = 4;

/** A strong ETag from the record's version, which every change bumps: no second read, no hashing of the view. */
export function invoiceEtag(record: InvoiceRecord): string {
  return `"${VIEW_REVISION}.${record.version}"`;
}

/** If-None-Match (RFC 9110 13.1.2): `*` or a list of tags, compared weakly. */
export function etagMatches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const given = tag.trim();
    return given === '*' || given.replace(/^W\//, '') === etag;
  });
}

/** `claimUrl`: the refund's claim link, from a route that derives it (RefundService.claimToken). */
export function refundView(record: RefundRecord, claimUrl: string | null = null): RefundView {
  const { request, withdrawal, claimLink } = record;
  const sends = withdrawalOf(record) ?? claimLink?.reserved;
  const rejected = record.phase === 'rejected';
  return {
    foreign_id: record.foreignId,
    invoice_foreign_id: isOrderRefund(request) ? request.invoiceForeignId : null,
    status: refundStatusName(record.status) ?? refundPhaseStatus(record),
    final: rejected || isFinal(record.status),
    failure_message: record.error,
    amount: withdrawal?.receivedAmount ?? null,
    currency: sends?.receivedCurrency ?? (isOrderRefund(request) ? (request.currency ?? null) : null),
    debited_amount: withdrawal?.senderAmount ?? sends?.senderAmount ?? null,
    debited_currency: sends?.senderCurrency ?? null,
    address: withdrawalOf(record)?.address ?? request.address ?? null,
    transaction_id: withdrawal?.id ?? null,
    claim_url: record.phase === 'claimable' ? claimUrl : null,
    claim_expires_at: claimLink ? iso(claimLink.expiresAt, 'claim_expires_at') : null,
    history: record.history.map(({ status, at, source }) => ({ status, at: iso(at, 'history.at'), source })),
    created_at: iso(record.createdAt, 'created_at'),
    updated_at: iso(record.updatedAt, 'updated_at'),
  };
}

/** What a claim link shows its customer: the store's name, the amount and the refund's progress; nothing of the order. */
export interface ClaimView {
  store_name: string | null;
  /** Whether the customer must (`required`), may (`optional`) or may not (`off`) give the receiver's details. */
  travel_rule: TravelRule;
  status: string;
  final: boolean;
  failure_message: string | null;
  /** What leaves the store's balance for the customer, in `debited_currency`. */
  debited_amount: string | null;
  debited_currency: string | null;
  /** The currency the customer receives, at the payment service's rate when the refund is sent. */
  currency: string | null;
  /** What the customer receives, once the payment service has answered. */
  amount: string | null;
  address: string | null;
  expires_at: string | null;
}

export function claimView(
  record: RefundRecord,
  store: { name: string | null; travelRule: TravelRule },
): ClaimView {
  const view = refundView(record);
  return {
    store_name: store.name,
    travel_rule: store.travelRule,
    status: view.status,
    final: view.final,
    // The customer sees the service's words on what they gave, and why a link closed; never the store's account's.
    failure_message: CUSTOMER_WORDS.has(view.status) ? view.failure_message : null,
    debited_amount: view.debited_amount,
    debited_currency: view.debited_currency,
    currency: view.currency,
    amount: view.amount,
    address: view.address,
    expires_at: view.claim_expires_at,
  };
}

const CUSTOMER_WORDS = new Set(['awaiting_claim', 'claim_expired', 'claim_cancelled']);

/** Where the customer claims a refund: the claim page, the refund and its token in the fragment, which no log sees. */
export function claimUrl(claimPage: string, foreignId: string, token: string): string {
  return `${claimPage}#${foreignId}/${token}`;
}

/** A refund's status before the service has one: where it is in its own life. */
function refundPhaseStatus({ phase, claimLink }: RefundRecord): string {
  if (phase === 'claimable') return 'awaiting_claim';
  if (phase !== 'rejected') return 'sending';
  return claimLink?.closed ? `claim_${claimLink.closed}` : 'rejected';
}

/** The service's withdrawal status as the refund view names it: one held for approval reads `awaiting_approval`. */
function refundStatusName(status: string | null): string | null {
  return status === AWAITING_APPROVAL ? 'awaiting_approval' : status;
}

export function snapshotView(snapshot: BalanceSnapshot): SnapshotView {
  return {
    taken_at: iso(snapshot.takenAt, 'taken_at'),
    source: snapshot.source,
    balances: snapshot.balances,
  };
}
