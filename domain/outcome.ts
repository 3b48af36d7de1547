// The invoice's status as the store sees it, from what the service said. No arithmetic here: the amounts arrive
// already compared (domain/payment.ts, when written), so that the poll's bundle leaves decimal.js out.
import type { InvoiceRecord } from './model';

export const INVOICE_STATUS_NAMES = [
  'creating',
  'awaiting_payment',
  'confirming',
  'paid',
  'underpaid',
  'expired',
  'cancelled',
  'failed',
] as const;

export type InvoiceStatusName = (typeof INVOICE_STATUS_NAMES)[number];

export const INVOICE_EXCEPTIONS = ['paid_partial', 'paid_over', 'paid_late'] as const;

export type InvoiceException = (typeof INVOICE_EXCEPTIONS)[number];

export interface InvoiceOutcome {
  status: InvoiceStatusName;
  final: boolean;
  exception: InvoiceException | null;
  /** The service's own words for a `failed` invoice; null for every other status. */
  failureMessage: string | null;
}

export type OutcomeFacts = Pick<
  InvoiceRecord,
  'phase' | 'status' | 'error' | 'cancelled' | 'cancelAskedAt' | 'payment'
>;

/** The service's texts for a failed invoice that we know the meaning of; matched exactly, never guessed at. */
export const SERVICE_FAILURES = {
  expiredUnpaid: 'Timer expired. User not paid.',
  expiredPartlyPaid: 'Timer expired. User paid partially.',
  underpaid: 'User paid less than required.',
  cancelled: 'Invoice cancelled by merchant.',
} as const;

/** The words a merchant's cancel is known by: the sandbox's, and the reference service's (issue 40). */
export const CANCEL_FAILURES: readonly string[] = [SERVICE_FAILURES.cancelled, 'Cancelled by merchant.'];

const FINAL: ReadonlySet<InvoiceStatusName> = new Set([
  'paid',
  'underpaid',
  'expired',
  'cancelled',
  'failed',
]);

export function invoiceOutcome(facts: OutcomeFacts): InvoiceOutcome {
  const status = statusOf(facts);
  return {
    status,
    final: FINAL.has(status),
    exception: exceptionOf(status, facts.payment),
    failureMessage: status === 'failed' ? facts.error || null : null,
  };
}

/**
 * Whether the order may be refunded: paid (over or not), or paid late, and credited as the service reported. The
 * order's refunds (domain/refund-bound.ts) then share what it netted. Never an underpaid order, nor money short of
 * what was due, late or not: the payment service returns a payment of less itself (the spec's `email_user`).
 */
export function isRefundable(facts: OutcomeFacts & Pick<InvoiceRecord, 'settlement'>): boolean {
  return refundRefusal(facts) === undefined;
}

/**
 * Why the refund route refuses the order, if it does (see `isRefundable`): not paid, nor paid late; paid short of
 * what was due; or paid enough but not credited yet. Views show it, so that no page judges "due" by another rule.
 */
export type RefundRefusal = 'not_paid' | 'short_of_due' | 'not_credited';

export function refundRefusal(
  facts: OutcomeFacts & Pick<InvoiceRecord, 'settlement'>,
): RefundRefusal | undefined {
  const { status, exception } = invoiceOutcome(facts);
  if (status !== 'paid' && status !== 'underpaid' && exception !== 'paid_late') return 'not_paid';
  if (status === 'underpaid' || !coversDue(facts.payment)) return 'short_of_due';
  return facts.settlement ? undefined : 'not_credited';
}

function statusOf(facts: OutcomeFacts): InvoiceStatusName {
  const { phase, status, error, payment } = facts;
  // Refused by the service. A create whose outcome stayed unknown, even one the sweep gave up on, or that never
  // reached the service, waits for the store's retry of its checkout (the answer was 504 or 502), which resumes it.
  if (phase === 'rejected') return 'failed';
  if (phase !== 'sent' || status === null) return 'creating';
  if (readsCancelled(facts)) return 'cancelled';
  switch (status) {
    case 'created':
    case 'pending':
      return 'awaiting_payment';
    case 'processing':
      return 'confirming';
    case 'confirmed':
      return coversDue(payment) ? 'paid' : 'underpaid';
    case 'failed':
      return failureOf(error, payment);
  }
}

/**
 * The one rule for "paid enough": what the customer sent covers what was due (the quote's amount when there is one,
 * else what the service reports received and remaining; domain/payment.ts compares them). Less is underpaid,
 * whatever word the service used; with no amounts to judge by, the service's word stands.
 */
export function coversDue(payment: InvoiceRecord['payment']): boolean {
  return payment?.coverage !== 'short';
}

/** What tells an invoice cancelled by the store; an invoice's fields, all absent on a refund. */
export interface CancelFacts {
  status: string | null;
  error?: string | null;
  cancelled?: boolean;
  cancelAskedAt?: number;
  payment?: Pick<NonNullable<InvoiceRecord['payment']>, 'late'> | null;
}

/**
 * Whether the invoice was cancelled by the store: our cancel's answer said so, or the service failed it in words
 * known for a cancel, or with no money in time after we asked for a cancel, in any words but its own failures'. What
 * we asked decides, as the service's wording may differ from the sandbox's.
 */
export function readsCancelled({ status, error, cancelled, cancelAskedAt, payment }: CancelFacts): boolean {
  if (cancelled) return true;
  if (status !== 'failed') return false;
  if (error != null && CANCEL_FAILURES.includes(error)) return true;
  return cancelAskedAt !== undefined && !failedOnItsOwn(error ?? null) && (!payment || payment.late === true);
}

/** Whether the service's reason says it failed the invoice itself: its timer ran out, or too little was paid. */
export function failedOnItsOwn(reason: string | null): boolean {
  const status = failureOf(reason, null);
  return status === 'expired' || status === 'underpaid';
}

function failureOf(error: string | null, payment: InvoiceRecord['payment']): InvoiceStatusName {
  switch (error) {
    case SERVICE_FAILURES.expiredUnpaid:
      // Whatever came after the timer ran out is late; only money that came in time makes it underpaid.
      return payment && !payment.late ? 'underpaid' : 'expired';
    case SERVICE_FAILURES.expiredPartlyPaid:
    case SERVICE_FAILURES.underpaid:
      return 'underpaid';
    default:
      return 'failed';
  }
}

function exceptionOf(status: InvoiceStatusName, payment: InvoiceRecord['payment']): InvoiceException | null {
  if (!payment) return null;
  // Money on a cancelled invoice came after the cancel was asked for, however the news was ordered: the shop must
  // see it, and may refund what the service credited (isRefundable).
  if (payment.late || status === 'cancelled') return 'paid_late';
  if (payment.coverage === 'over') return 'paid_over';
  // While the service still waits, any payment is a part; while it confirms, only one known to fall short.
  if (status === 'awaiting_payment' || (status === 'confirming' && payment.coverage === 'short'))
    return 'paid_partial';
  return null;
}
