// How the console writes amounts, times and statuses. Amounts stay decimal strings: they are only trimmed for
// reading, never turned into numbers.
import type { InvoiceStatus } from './api';

export const STATUS_WORDS: Readonly<Record<InvoiceStatus, string>> = {
  creating: 'Creating',
  awaiting_payment: 'Awaiting payment',
  confirming: 'Confirming',
  paid: 'Paid',
  underpaid: 'Underpaid',
  expired: 'Expired',
  cancelled: 'Cancelled',
  failed: 'Failed',
};

export const EXCEPTION_WORDS: Readonly<Record<string, string>> = {
  paid_partial: 'Partly paid',
  paid_over: 'Overpaid',
  paid_late: 'Paid late',
};

/** "1234.50000000" → "1,234.50": at least two fractional digits, no trailing zeros beyond them. */
export function amount(value: string): string {
  const [whole, fraction = ''] = value.split('.');
  const digits = fraction.replace(/0+$/, '').padEnd(2, '0');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${digits}`;
}

export function money(value: string | null, currency: string | null): string {
  return value === null || currency === null ? '—' : `${amount(value)} ${currency}`;
}

const TIME = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function time(iso: string | null): string {
  return iso === null ? '—' : TIME.format(new Date(iso));
}

/** A service status such as `pending` or `partially_paid`, as words. */
export function words(code: string): string {
  const text = code.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
