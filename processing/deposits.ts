// The deposits an invoice's callbacks name, and what their lookups (spec 4.7: deposits by `id`) tell of its money.
import { Decimal } from '../domain/decimal';
import type { Payment, ReportedDeposit } from '../domain/model';
import type { DepositNews } from '../domain/ports';
import { depositsOf, errorText, moneyNews, paymentOf } from './translate';
import type { TransactionRecord } from './wire';

/** Deposit ids a callback may name; more would only be a larger item. */
const MAX_NAMED = 20;

/** The transaction ids in a callback's `transactions[]`: positive integers, each once, bounded. */
export function depositIdsOf(transactions: unknown): number[] | undefined {
  if (!Array.isArray(transactions)) return undefined;
  const ids = new Set<number>();
  for (const entry of transactions as unknown[]) {
    const id = (entry as { id?: unknown } | null)?.id;
    if (typeof id === 'number' && Number.isSafeInteger(id) && id > 0) ids.add(id);
    if (ids.size >= MAX_NAMED) break;
  }
  return ids.size > 0 ? [...ids] : undefined;
}

/**
 * What the found records tell of the invoice: its own record, when the service answers a deposit's id with it (type
 * `invoice`), else the money the deposits brought, summed. Records under another foreign_id are not ours; deposits
 * in different currencies tell nothing sure. A deposit's status is its own, never read as the invoice's.
 */
export function depositNews(records: TransactionRecord[], upstreamForeignId: string): DepositNews {
  const ours = records.filter((record) => record.foreign_id === upstreamForeignId);
  const whole = ours.find((record) => record.type === 'invoice');
  if (whole)
    return {
      invoice: { status: whole.status, error: errorText(whole.error), ...moneyNews(whole, 'getTransaction') },
    };
  const payments = ours
    .map((record) => paymentOf(record.currency_sent))
    .filter((payment): payment is Payment => payment !== undefined);
  const [first] = payments;
  if (!first || payments.some((payment) => payment.currency !== first.currency)) return {};
  const sum = payments.reduce((total, payment) => total.plus(payment.amount), new Decimal(0));
  const deposits = ours.flatMap((record) => depositsOf(record.transactions) ?? ([] as ReportedDeposit[]));
  return sum.gt(0)
    ? {
        payment: { currency: first.currency, amount: sum.toFixed(Math.max(8, sum.decimalPlaces())) },
        ...(deposits.length > 0 && { deposits }),
      }
    : {};
}
