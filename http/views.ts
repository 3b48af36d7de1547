import type { BalanceSnapshot, InvoiceRecord, Phase, RefundRecord } from '../domain/model';
import { isFinal } from '../domain/status';

/** Before the service's first answer: `creating` resolves on a retry; the other two are final. */
const PHASE_STATUS: Record<Phase, string> = {
  sending: 'creating',
  unknown: 'creating',
  rejected: 'rejected',
  abandoned: 'abandoned',
  sent: 'creating',
};

/** What the storefront polls. `seconds_left` and `expired` are computed at read time. */
export function invoiceView(record: InvoiceRecord, nowMs: number) {
  const invoice = record.invoice;
  const releaseAt = invoice?.releaseAt ?? null;
  const nowSeconds = Math.floor(nowMs / 1000);
  return {
    foreign_id: record.foreignId,
    status: record.status ?? PHASE_STATUS[record.phase],
    url: invoice?.url ?? null,
    address: invoice?.address ?? null,
    tag: invoice?.tag ?? null,
    title: record.request.title,
    currency: record.request.currency,
    amount: invoice?.amount ?? record.request.amount,
    sender_currency: invoice?.senderCurrency ?? null,
    sender_amount: invoice?.senderAmount ?? null,
    fixed_at: invoice?.fixedAt ?? null,
    release_at: releaseAt,
    seconds_left: releaseAt === null ? null : Math.max(0, releaseAt - nowSeconds),
    expired: releaseAt !== null && nowSeconds >= releaseAt && awaitsPayment(record),
    cancelled: record.cancelled,
    payment: record.payment && {
      currency: record.payment.currency,
      amount: record.payment.amount,
      remaining_amount: record.payment.remainingAmount ?? null,
    },
    error: record.error,
    history: record.history,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

/**
 * Only an invoice still waiting for a payment runs out of time: once the service has seen one, it extends the
 * timer while the payment confirms, so a paid invoice past its `release_at` is not expired.
 */
function awaitsPayment(record: InvoiceRecord): boolean {
  return (record.status === 'created' || record.status === 'pending') && record.payment === null;
}

export function refundView(record: RefundRecord) {
  const { request, withdrawal } = record;
  return {
    foreign_id: record.foreignId,
    status: record.status ?? (record.phase === 'rejected' ? 'rejected' : 'sending'),
    final: isFinal(record.status),
    sender_currency: request.senderCurrency,
    sender_amount: withdrawal?.senderAmount ?? request.senderAmount,
    received_currency: request.receivedCurrency,
    received_amount: withdrawal?.receivedAmount ?? null,
    address: request.address,
    transaction_id: withdrawal?.id ?? null,
    error: record.error,
    history: record.history,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

export function snapshotView(snapshot: BalanceSnapshot) {
  return {
    taken_at: new Date(snapshot.takenAt).toISOString(),
    source: snapshot.source,
    balances: snapshot.balances,
  };
}
