// An order's refunds against what it netted: the bound's arithmetic, exact to 8 places. Apart from invoices.ts so
// that the poll's bundle, which shows the `refundable` kept on the record, leaves decimal.js out.
import { Decimal } from './decimal';
import { ConflictError, RefundBoundError } from './errors';
import type {
  InvoiceRecord,
  OrderRefundRequest,
  RefundEntry,
  RefundEntryState,
  RefundRequest,
} from './model';
import { isRefundable } from './outcome';

/** Refunds that may count against one order at once; with this many the invoice item stays under 4 KB. */
export const MAX_REFUNDS_PER_ORDER = 20;

type Entries = InvoiceRecord['refunds'];

/** A refund not ended, or confirmed: its amount is taken from the order's net. */
export function countsAgainstNet(entry: RefundEntry): boolean {
  return entry.state === 'pending' || entry.state === 'confirmed';
}

/** The net credited less every refund that counts against it, never below zero. */
export function refundableAmount(net: string, entries: Entries): string {
  const taken = (entries ?? [])
    .filter(countsAgainstNet)
    .reduce((sum, entry) => sum.plus(entry.debitedAmount), new Decimal(0));
  // Cut, not rounded: a net written with more places must not round up past what the order netted.
  return Decimal.max(new Decimal(net).minus(taken), 0).toFixed(8, Decimal.ROUND_DOWN);
}

type Change = Omit<InvoiceRecord, 'version'>;

/** The withdrawal a reservation sizes; the address is the request's, or the customer's through a claim link. */
export type Unaddressed = Omit<RefundRequest, 'address'>;

/**
 * Reserves the refund on its order: appends its entry if it fits within what the order has left, and answers the
 * withdrawal it sends. A refund already reserved (a retry) finds its entry and changes nothing.
 */
export function reservation(
  record: InvoiceRecord,
  ask: OrderRefundRequest,
  createdAt: number,
  now: number,
): { next?: Change; sends: Unaddressed } {
  const { settlement, payment } = record;
  if (!settlement || !payment || !isRefundable(record)) {
    throw new ConflictError(
      'invoice_not_refundable',
      'Only a paid order (or one paid late) whose credit the service has reported can be refunded',
    );
  }
  const sends = (entry: RefundEntry): Unaddressed => ({
    foreignId: ask.foreignId,
    senderCurrency: settlement.currency,
    receivedCurrency: entry.currency,
    senderAmount: entry.debitedAmount,
    ...(ask.endUserReference !== undefined && { endUserReference: ask.endUserReference }),
  });
  const entries = record.refunds ?? [];
  const reserved = entries.find((entry) => entry.foreignId === ask.foreignId && countsAgainstNet(entry));
  if (reserved) return { sends: sends(reserved) };

  const left = new Decimal(refundableAmount(settlement.net, entries));
  const amount = new Decimal(ask.debitedAmount ?? left);
  if (amount.lte(0) || amount.gt(left)) {
    throw new RefundBoundError({ amount: left.toFixed(8), currency: settlement.currency });
  }
  const counted = entries.filter(countsAgainstNet);
  if (counted.length >= MAX_REFUNDS_PER_ORDER) {
    throw new ConflictError(
      'too_many_refunds',
      `An order takes at most ${MAX_REFUNDS_PER_ORDER} refunds that are not failed, declined or cancelled`,
    );
  }
  const entry: RefundEntry = {
    foreignId: ask.foreignId,
    debitedAmount: amount.toFixed(8),
    currency: ask.currency ?? payment.currency,
    state: 'pending',
    createdAt,
  };
  // The oldest released entries make room: the refund itself still shows them.
  const kept = [...entries];
  while (kept.length >= MAX_REFUNDS_PER_ORDER) kept.splice(kept.findIndex(isReleased), 1);
  const refunds = [...kept, entry];
  return {
    next: { ...record, refunds, refundable: refundableAmount(settlement.net, refunds), updatedAt: now },
    sends: sends(entry),
  };
}

const isReleased = (entry: RefundEntry) => !countsAgainstNet(entry);

/**
 * The order once its refund has ended: a failed, declined or cancelled one no longer counts against the net.
 * Undefined when there is nothing to change: no such pending entry (never reserved, or already ended).
 */
export function refundEnded(
  record: InvoiceRecord,
  refundForeignId: string,
  state: Exclude<RefundEntryState, 'pending'>,
  now: number,
): Change | undefined {
  const entries = record.refunds ?? [];
  const index = entries.findIndex(
    (entry) => entry.foreignId === refundForeignId && entry.state === 'pending',
  );
  if (index < 0) return undefined;
  const refunds = entries.map((entry, at) => (at === index ? { ...entry, state } : entry));
  return {
    ...record,
    refunds,
    refundable: refundableAmount(record.settlement?.net ?? '0', refunds),
    updatedAt: now,
  };
}
