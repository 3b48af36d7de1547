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

/** The ISO 4217 currencies the browser knows; anything else (BTC, USDT) is a cryptocurrency here. */
const ISO_CURRENCIES: ReadonlySet<string> = new Set(
  (Intl as unknown as { supportedValuesOf?: (key: string) => string[] }).supportedValuesOf?.('currency') ?? [
    'EUR',
    'USD',
    'GBP',
  ],
);

/** A currency's own places: an ISO currency's minor unit (2 for EUR, 0 for JPY); none for a cryptocurrency. */
function ownPlaces(currency: string | null): number {
  if (currency === null || !ISO_CURRENCIES.has(currency)) return 0;
  return (
    new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().minimumFractionDigits ?? 2
  );
}

/**
 * The one way the console writes an amount: trailing zeros trimmed, down to the currency's own places, never
 * rounded ("15.24500000" EUR is 15.245, "25.50000000" EUR is 25.50, "0.00046000" BTC is 0.00046).
 */
export function plainAmount(value: string, currency: string | null): string {
  const [whole, fraction = ''] = value.split('.');
  const digits = fraction.replace(/0+$/, '').padEnd(ownPlaces(currency), '0');
  return digits ? `${whole}.${digits}` : whole;
}

/** As plainAmount, with thousands separated: "1,234.50". */
export function amount(value: string, currency: string | null): string {
  const [whole, fraction] = plainAmount(value, currency).split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

export function money(value: string | null, currency: string | null): string {
  return value === null || currency === null ? '—' : `${amount(value, currency)} ${currency}`;
}

/**
 * One word for where a refund stands, in every view: the order's own record of it (`pending`) and the payment
 * service's withdrawal status (`processing`) are both still being sent; one awaiting approval waits for an owner.
 */
export const REFUND_WORDS: Readonly<Record<string, string>> = {
  sending: 'Sending',
  pending: 'Sending',
  awaiting_approval: 'Awaiting approval',
  verifying: 'Sending',
  processing: 'Sending',
  confirmed: 'Sent',
  failed: 'Failed',
  declined: 'Declined by an owner',
  cancelled: 'Cancelled by the payment service',
  rejected: 'Refused',
  awaiting_claim: 'Awaiting the customer’s address',
  claim_expired: 'Claim link expired',
  claim_cancelled: 'Claim link cancelled',
};

/** What the store's owner must do for a refund awaiting approval: the plugin cannot approve it. */
export const APPROVAL_HINT = "Approve or decline it in the payment service's back office.";

export function refundWords(status: string): string {
  return REFUND_WORDS[status] ?? words(status);
}

/** What each of the payment service's invoice statuses means to the shop. */
const HISTORY_WORDS: Readonly<Record<string, string>> = {
  created: 'Invoice created',
  pending: 'Waiting for payment',
  processing: 'Payment received, confirming',
  partially_paid: 'Part of the payment received',
  confirmed: 'Paid',
  failed: 'Did not go through',
};

/** Where the news came from, in the shop's words. */
const SOURCE_WORDS: Readonly<Record<string, string>> = {
  create: 'Checkout',
  callback: 'Payment service',
  cancel: 'Your cancel',
  reconcile: 'Reconcile job',
  lookup: 'Payment service, asked',
};

/** A history row's event: a failure that came from our own cancel is the cancel. */
export function historyWords(status: string, source: string): string {
  if (status === 'failed' && source === 'cancel') return 'Cancelled';
  return HISTORY_WORDS[status] ?? words(status);
}

export function sourceWords(source: string): string {
  return SOURCE_WORDS[source] ?? words(source);
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
