// News from the payment service about one invoice, and how it moves the record: only forward, only for the
// invoice's current upstream attempt. Pure functions; InvoiceService (domain/invoices.ts) writes what they answer.
import { NotReadyError } from './errors';
import {
  MAX_DEPOSITS,
  type Deposit,
  type InvoiceRecord,
  type InvoiceStatus,
  type Payment,
  type ReportedDeposit,
  type Settlement,
  type StatusChange,
} from './model';
import { SERVICE_FAILURES } from './outcome';
import { creditGrows, paysMore, paysSame, recordedPayment } from './payment';
import { refundableAmount } from './refund-bound';
import { isFinal, movesForward } from './status';
import type { AccountKind } from './stores';

/** Attempts after the first use `<foreign_id>~<attempt>` upstream, so `~` is not allowed in our foreign_ids. */
export const ATTEMPT_SEPARATOR = '~';

export function upstreamForeignId(record: Pick<InvoiceRecord, 'foreignId' | 'attempt'>): string {
  return record.attempt === 1 ? record.foreignId : `${record.foreignId}${ATTEMPT_SEPARATOR}${record.attempt}`;
}

export function orderForeignId(upstreamId: string): string {
  return upstreamId.split(ATTEMPT_SEPARATOR)[0];
}

export interface StatusUpdate {
  upstreamForeignId: string;
  status: InvoiceStatus;
  source: StatusChange['source'];
  error?: string;
  payment?: Payment;
  settlement?: Settlement;
  /** Deposit transaction ids the service named for the invoice. */
  depositIds?: number[];
  expiresAt?: number;
  confirmations?: number;
  deposits?: ReportedDeposit[];
  /** The account whose callback endpoint brought the news; applied only to a record claimed on that account. */
  via?: AccountKind;
}

/** Deposit ids an invoice keeps for its lookups: enough for a payment in many parts, bounded for the item's size. */
export const MAX_DEPOSIT_IDS = 20;

/** The ids kept so far and the new ones, first seen first, bounded; the same array when nothing is new. */
function withDepositIds(kept: number[] | undefined, named: number[] | undefined): number[] | undefined {
  const fresh = (named ?? []).filter((id, at, all) => !kept?.includes(id) && all.indexOf(id) === at);
  if (fresh.length === 0 || (kept?.length ?? 0) >= MAX_DEPOSIT_IDS) return kept;
  return [...(kept ?? []), ...fresh].slice(0, MAX_DEPOSIT_IDS);
}

/**
 * The deposits kept so far with the reported ones merged by the service's id: a known one only gains
 * confirmations, a new one is added as seen `at`, first seen first, bounded. The same array when nothing moves.
 */
export function withDeposits(
  kept: Deposit[] | undefined,
  reported: ReportedDeposit[] | undefined,
  at: number,
): Deposit[] | undefined {
  if (!reported?.length) return kept;
  let next = kept ?? [];
  let moved = false;
  for (const deposit of reported) {
    const index = next.findIndex((known) => known.id === deposit.id);
    if (index >= 0) {
      if (deposit.confirmations <= next[index].confirmations) continue;
      next = next.map((known, i) =>
        i === index ? { ...known, confirmations: deposit.confirmations } : known,
      );
      moved = true;
    } else if (next.length < MAX_DEPOSITS) {
      next = [...next, { ...deposit, seenAt: at }];
      moved = true;
    }
  }
  return moved ? next : kept;
}

/** The record with the news in it, written at `at`; undefined when the news moves nothing. */
export function withNews(
  current: InvoiceRecord,
  update: StatusUpdate,
  at: number,
): Omit<InvoiceRecord, 'version'> | undefined {
  if (upstreamForeignId(current) !== update.upstreamForeignId) return undefined;
  // The service answered our create but we have not recorded it yet: the news must not be lost.
  if (current.phase === 'sending') throw new NotReadyError('The invoice');
  if (current.phase !== 'sent') return undefined;
  const advances = movesForward(current.status, update.status);
  // A partial payment may keep the status; news of a smaller one is older news, whatever order it came in.
  // Money may still come in once the invoice is final: it is recorded, as late. So is the first money that
  // comes with the service's word that nothing was paid in time, whichever way the two arrive.
  const notPaidInTime = update.status === 'failed' && update.error === SERVICE_FAILURES.expiredUnpaid;
  const late = isFinal(current.status) || (notPaidInTime && !current.payment);
  const paid =
    update.payment && paysMore(update.payment, current.payment)
      ? recordedPayment(update.payment, current, late)
      : undefined;
  // A credit that grows is news even when nothing else moves: money confirmed after a cancel, say.
  const credited = update.settlement && creditGrows(update.settlement, current.settlement);
  const depositIds = withDepositIds(current.depositIds, update.depositIds);
  const deposits = withDeposits(current.deposits, update.deposits, at);
  const invoice = extendedExpiry(current.invoice, update.expiresAt);
  // Only more: older news delivered late never takes the count the customer has seen back.
  const confirmations = Math.max(update.confirmations ?? -1, current.confirmations ?? -1);
  const confirms = confirmations > (current.confirmations ?? -1);
  // Our cancel is news even when its own callback already recorded the `failed`: the sweep then watches it.
  const cancelled = current.cancelled || (update.source === 'cancel' && update.status === 'failed');
  const moves = advances || paid || credited || cancelled !== current.cancelled;
  const unmoved = depositIds === current.depositIds && deposits === current.deposits;
  if (!moves && !confirms && unmoved && invoice === current.invoice) return undefined;
  // Older news may move something else (a later expiry, a deposit id) while it reports less credit.
  const settlement = credited ? update.settlement : (current.settlement ?? update.settlement);
  return {
    ...current,
    invoice,
    ...(depositIds && { depositIds }),
    ...(deposits && { deposits }),
    ...(confirms && { confirmations }),
    status: advances ? update.status : current.status,
    payment: paid ?? current.payment,
    settlement,
    // A later credit (a late payment) leaves more to refund.
    ...(current.refunds && settlement && { refundable: refundableAmount(settlement.net, current.refunds) }),
    error: update.error ?? current.error,
    cancelled,
    history: advances
      ? [...current.history, { status: update.status, at, source: update.source }]
      : current.history,
    updatedAt: at,
  };
}

/**
 * Whether the record already says what the news says: its status and, where the news names one, its payment. A
 * repeated delivery is such news; older news (an earlier status, a smaller payment) is not.
 */
export function holdsNews(record: InvoiceRecord, update: StatusUpdate): boolean {
  if (upstreamForeignId(record) !== update.upstreamForeignId || record.phase !== 'sent') return false;
  if (record.status !== update.status) return false;
  return !update.payment || paysSame(update.payment, record.payment);
}

/**
 * The invoice with the later expiry the service names, which it sets once a payment is seen; the same object when
 * there is none. Never earlier than one already shown, and none for an invoice without a timer.
 */
function extendedExpiry(
  invoice: InvoiceRecord['invoice'],
  expiresAt: number | undefined,
): InvoiceRecord['invoice'] {
  const releaseAt = invoice?.releaseAt;
  if (!invoice || releaseAt == null || expiresAt === undefined || expiresAt <= releaseAt) return invoice;
  return { ...invoice, releaseAt: expiresAt };
}
