import type { Balance, Invoice, InvoiceStatus, InvoiceType, Withdrawal } from '../processing/types';

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
 * - `rejected`: the service refused the request; the foreign_id may be used again.
 * - `abandoned`: the sweep gave up on an unknown create and cancelled whatever it may have left upstream.
 * - `sent`: the service answered and the record holds its answer.
 */
export type Phase = 'sending' | 'unknown' | 'rejected' | 'abandoned' | 'sent';

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
  /** Some of it arrived after the invoice was already final. */
  late?: boolean;
}

/** What the service credited the merchant for the invoice, and its fees, as its callbacks and lookups report. */
export interface Settlement {
  currency: string;
  /** `currency_received.amount`: credited, net of the fees. */
  net: string;
  /** Summed per currency, sorted by currency. */
  fees: Array<{ currency: string; amount: string }>;
}

export interface InvoiceRecord {
  foreignId: string;
  version: number;
  phase: Phase;
  requestHash: string;
  request: CheckoutRequest;
  /** Upstream attempt number; attempts after the first carry a `~N` suffix on the service's foreign_id. */
  attempt: number;
  claimedAt: number;
  status: InvoiceStatus | null;
  invoice: Invoice | null;
  payment: Payment | null;
  settlement?: Settlement;
  error: string | null;
  cancelled: boolean;
  history: StatusChange[];
  createdAt: number;
  updatedAt: number;
  /** When the reconciliation sweep last looked at it; orders the sweep's work with `updatedAt`. */
  sweptAt?: number;
}

export interface RefundRequest {
  foreignId: string;
  senderCurrency: string;
  receivedCurrency: string;
  senderAmount: string;
  address: string;
  endUserReference?: string;
}

export interface RefundRecord {
  foreignId: string;
  version: number;
  phase: Phase;
  requestHash: string;
  request: RefundRequest;
  claimedAt: number;
  status: string | null;
  withdrawal: Withdrawal | null;
  error: string | null;
  history: StatusChange[];
  createdAt: number;
  updatedAt: number;
  /** When the reconciliation sweep last looked at it; orders the sweep's work with `updatedAt`. */
  sweptAt?: number;
}

export interface BalanceSnapshot {
  takenAt: number;
  source: 'live' | 'scheduled';
  balances: Balance[];
}
