// Between the domain's types and the service's words: requests out, answers and errors in.
import { Decimal } from '../domain/decimal';
import { alpha3Of } from '../domain/countries';
import { ServiceError, type ServiceFailure } from '../domain/errors';
import {
  isServiceTime,
  MAX_DEPOSITS,
  type CheckoutRequest,
  type InvoiceDetails,
  type Payment,
  type Receiver,
  type Sender,
  type RefundRequest,
  type ReportedDeposit,
  type Settlement,
  type WithdrawalDetails,
} from '../domain/model';
import {
  ProcessingAuthError,
  ProcessingBadContentError,
  ProcessingConnectionError,
  ProcessingError,
  ProcessingFeatureDisabledError,
  ProcessingInvalidStateError,
  ProcessingNotFoundError,
  ProcessingTimeoutError,
  ProcessingTimeRangeError,
  ProcessingValidationError,
  serviceReason,
} from './errors';
import { MAX_AMOUNT_DIGITS } from './json';
import type { CreateInvoiceRequest, Invoice, TravelRuleData, Withdrawal, WithdrawalRequest } from './wire';

export function invoiceRequest(
  upstreamForeignId: string,
  request: CheckoutRequest,
  sender?: Sender,
): CreateInvoiceRequest {
  return {
    foreign_id: upstreamForeignId,
    timer: request.timer,
    title: request.title,
    currency: request.currency,
    amount: request.amount,
    url_success: request.urlSuccess,
    url_failed: request.urlFailed,
    email_user: request.email,
    type: request.type,
    end_user_reference: request.endUserReference,
    description: request.description,
    sender_currency: request.senderCurrency,
    ...(sender && { sender_type: sender.type, sender_data: travelRuleData(sender) }),
  };
}

export function withdrawalRequest(request: RefundRequest, receiver?: Receiver): WithdrawalRequest {
  return {
    foreign_id: request.foreignId,
    sender_currency: request.senderCurrency,
    received_currency: request.receivedCurrency,
    sender_amount: request.senderAmount,
    address: request.address,
    end_user_reference: request.endUserReference,
    ...(receiver && travelRuleReceiver(receiver)),
  };
}

/** The receiver in the service's words (see `travelRuleData`); our own wallet is `self`, with no data. */
export function travelRuleReceiver(
  receiver: Receiver,
): Pick<WithdrawalRequest, 'receiver_type' | 'receiver_data'> {
  if (receiver.type === 'self') return { receiver_type: 'self' };
  return { receiver_type: receiver.type, receiver_data: travelRuleData(receiver) };
}

/**
 * A person's or a company's travel-rule data in the service's words (its "User data collection", "Withdraw crypto"
 * and "Create an invoice" pages), for a receiver and a payer alike: a company is `legal_name` and
 * `country_of_registration`, the country in ISO 3166-1 alpha-3 as the service's example writes it.
 */
export function travelRuleData(party: Sender): TravelRuleData {
  const email = party.email !== undefined ? { email: party.email } : {};
  switch (party.type) {
    case 'natural':
      return {
        first_name: party.firstName,
        last_name: party.lastName,
        date_of_birth: party.dateOfBirth,
        ...email,
      };
    case 'legal':
      return {
        legal_name: party.companyName,
        country_of_registration: alpha3Of(party.country) ?? party.country,
        ...email,
      };
  }
}

export function invoiceDetails(invoice: Invoice): InvoiceDetails {
  return {
    id: invoice.id,
    url: boundedText(invoice.url, URL_MAX_BYTES),
    address: boundedOrNull(invoice.address, ADDRESS_MAX_BYTES),
    tag: boundedOrNull(invoice.tag ?? null, ADDRESS_MAX_BYTES),
    amount: invoice.amount,
    senderCurrency: boundedOrNull(invoice.sender_currency, CURRENCY_MAX_BYTES),
    senderAmount: invoice.sender_amount,
    fixedAt: serviceTime(invoice.fixed_at, 'fixed_at', 'createInvoice'),
    releaseAt: serviceTime(invoice.release_at, 'release_at', 'createInvoice'),
  };
}

/**
 * A time the service gives, in Unix seconds; null when it gives none. Throws ProcessingTimeRangeError for any
 * other value, a number outside SERVICE_TIME_RANGE included: no view could write it.
 */
export function serviceTime(value: unknown, field: string, operation: string): number | null {
  if (value === null || value === undefined) return null;
  if (isServiceTime(value)) return value;
  throw new ProcessingTimeRangeError(operation, field);
}

export function withdrawalDetails(withdrawal: Withdrawal): WithdrawalDetails {
  return {
    id: withdrawal.id,
    senderAmount: withdrawal.sender_amount,
    receivedAmount: withdrawal.received_amount,
  };
}

/** An amount written as a string, as long as one written as a number may be (processing/json.ts). */
const PLAIN_DECIMAL = new RegExp(`^\\d{1,${MAX_AMOUNT_DIGITS}}(\\.\\d{1,${MAX_AMOUNT_DIGITS}})?$`);

type Reported = { currency?: unknown; amount?: unknown; remaining_amount?: unknown } | null | undefined;

/** The payment a transaction record or a callback reports in `currency_sent`; none without a readable amount. */
export function paymentOf(sent: Reported): Payment | undefined {
  if (!isReported(sent)) return undefined;
  return {
    currency: boundedText(sent.currency, CURRENCY_MAX_BYTES),
    amount: sent.amount,
    remainingAmount: isAmount(sent.remaining_amount) ? sent.remaining_amount : undefined,
  };
}

/**
 * The payment, the settlement and the expiry a transaction record or an invoice's callback reports. Throws
 * ProcessingTimeRangeError for an `expires_at` that is neither null nor a time within SERVICE_TIME_RANGE.
 */
export function moneyNews(
  reported: {
    currency_sent?: Reported;
    currency_received?: Reported;
    fees?: unknown;
    expires_at?: unknown;
    transactions?: unknown;
  },
  operation: string,
): {
  payment?: Payment;
  settlement?: Settlement;
  expiresAt?: number;
  confirmations?: number;
  deposits?: ReportedDeposit[];
} {
  // Unix seconds; the service extends it to 24 hours once a payment is seen.
  const expiresAt = serviceTime(reported.expires_at, 'expires_at', operation);
  const confirmations = confirmationsOf(reported.transactions);
  const deposits = depositsOf(reported.transactions);
  return {
    payment: paymentOf(reported.currency_sent),
    settlement: settlementOf(reported.currency_received, reported.fees),
    ...(expiresAt !== null && { expiresAt }),
    ...(confirmations !== undefined && { confirmations }),
    ...(deposits && { deposits }),
  };
}

/**
 * The deposits in a record's `transactions[]`, each once by its id, in the order given, bounded like every list and
 * text of the service's: an entry without an id, a txid, a currency or a readable amount tells nothing to show. Txids,
 * addresses and currency codes are plain ASCII words on every chain, and held to that: an invoice's item keeps its
 * deposits twice at most (in itself and in one carried event), so their bytes are counted closely.
 */
export function depositsOf(transactions: unknown): ReportedDeposit[] | undefined {
  if (!Array.isArray(transactions)) return undefined;
  const found = new Map<number, ReportedDeposit>();
  for (const entry of transactions as unknown[]) {
    if (found.size >= MAX_DEPOSITS) break;
    const { id, txid, amount, currency, confirmations, address } = (entry ?? {}) as Record<string, unknown>;
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id <= 0 || found.has(id)) continue;
    if (!isChainWord(txid, TXID_MAX_BYTES) || !isChainWord(currency, DEPOSIT_CURRENCY_MAX_BYTES)) continue;
    if (!isAmount(amount)) continue;
    found.set(id, {
      id,
      txid,
      amount: fixed8(new Decimal(amount)),
      currency,
      confirmations:
        typeof confirmations === 'number' && Number.isSafeInteger(confirmations) && confirmations >= 0
          ? confirmations
          : 0,
      address: isChainWord(address, DEPOSIT_ADDRESS_MAX_BYTES) ? address : '',
    });
  }
  return found.size > 0 ? [...found.values()] : undefined;
}

/** Letters, digits and `.`, `_`, `:`, `-`, as txids, addresses and currency codes are written; at most `maxBytes`. */
function isChainWord(value: unknown, maxBytes: number): value is string {
  return typeof value === 'string' && value.length <= maxBytes && /^[A-Za-z0-9._:-]+$/.test(value);
}

/**
 * The fewest confirmations among the deposits (`transactions[].confirmations`): the one the order still waits on.
 * The spec gives each deposit's count, never how many the service needs.
 */
export function confirmationsOf(transactions: unknown): number | undefined {
  if (!Array.isArray(transactions)) return undefined;
  let fewest: number | undefined;
  for (const entry of transactions as unknown[]) {
    const count = (entry as { confirmations?: unknown } | null)?.confirmations;
    if (typeof count === 'number' && Number.isSafeInteger(count) && count >= 0)
      fewest = Math.min(fewest ?? count, count);
  }
  return fewest;
}

/** What was credited (`currency_received`) and the fees charged (`fees[]`); none without a readable amount. */
export function settlementOf(received: Reported, fees: unknown): Settlement | undefined {
  if (!isReported(received)) return undefined;
  const sums = new Map<string, Decimal>();
  // Each entry is summed as it comes, so a list of any length costs one pass and the record keeps a few sums.
  for (const fee of Array.isArray(fees) ? (fees as Reported[]) : []) {
    if (isReported(fee)) sums.set(fee.currency, (sums.get(fee.currency) ?? new Decimal(0)).plus(fee.amount));
  }
  return {
    currency: boundedText(received.currency, CURRENCY_MAX_BYTES),
    net: fixed8(new Decimal(received.amount)),
    // Cut short only once summed, so that no two currencies that differ past the bound are added together.
    fees: [...sums.keys()]
      .sort()
      .slice(0, MAX_FEE_CURRENCIES)
      .map((currency) => ({
        currency: boundedText(currency, CURRENCY_MAX_BYTES),
        amount: fixed8(sums.get(currency)!),
      })),
  };
}

/** At least 8 fractional digits, as the service writes them, and every digit it gave beyond. */
const fixed8 = (amount: Decimal): string => amount.toFixed(Math.max(8, amount.decimalPlaces()));

function isReported(
  value: Reported,
): value is { currency: string; amount: string; remaining_amount?: unknown } {
  return !!value && typeof value.currency === 'string' && isAmount(value.amount);
}

function isAmount(value: unknown): value is string {
  return typeof value === 'string' && PLAIN_DECIMAL.test(value);
}

// Bounds on what we keep of the service's texts and lists, in UTF-8 bytes as DynamoDB sizes an item: a signed
// callback with a 1 MB `error` or a 20 KB currency name must not push a record past the item limit and fail on
// every retry. Past a bound a text is kept cut short (ending in "…"), and the news is recorded all the same.

/** The service's reasons (`error`). */
export const SERVICE_TEXT_MAX_BYTES = 1_000;
/** Currency codes: real ones are a few letters. */
export const CURRENCY_MAX_BYTES = 64;
/** Deposit addresses and tags: real ones are at most about a hundred characters. */
export const ADDRESS_MAX_BYTES = 256;
/** The payment page's URL, as long as a URL a browser is sure to open. */
export const URL_MAX_BYTES = 2_048;
/** Blockchain transaction ids: room for the longest real ones. */
export const TXID_MAX_BYTES = 128;
/** A deposit's address, as long as the longest real ones. */
export const DEPOSIT_ADDRESS_MAX_BYTES = 128;
/** A deposit's currency code. */
export const DEPOSIT_CURRENCY_MAX_BYTES = 16;
/** Fees are summed per currency; an invoice's fees come in one currency or two, and past this many the first are kept. */
export const MAX_FEE_CURRENCIES = 8;

const ELLIPSIS = '…';
const ELLIPSIS_BYTES = Buffer.byteLength(ELLIPSIS);

/** `text` if it fits in `maxBytes` of UTF-8, else its longest prefix of whole characters that fits with "…". */
export function boundedText(text: string, maxBytes: number): string {
  // Each UTF-16 unit is at most 3 UTF-8 bytes: most texts are measured without a pass over them.
  if (text.length * 3 <= maxBytes || Buffer.byteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = Buffer.byteLength(char);
    if (bytes + size > maxBytes - ELLIPSIS_BYTES) break;
    bytes += size;
    end += char.length;
  }
  return `${text.slice(0, end)}${ELLIPSIS}`;
}

function boundedOrNull(text: string | null, maxBytes: number): string | null {
  return text === null ? null : boundedText(text, maxBytes);
}

function bounded(text: string): string {
  return boundedText(text, SERVICE_TEXT_MAX_BYTES);
}

/** The service's `error` field, which is an empty string when there is none. */
export function errorText(error: unknown): string | undefined {
  return typeof error === 'string' && error !== '' ? bounded(error) : undefined;
}

/** The client's error as the domain knows it; anything else as it is. */
export function toServiceError(error: unknown): unknown {
  if (!(error instanceof ProcessingError)) return error;
  return new ServiceError(failureOf(error), error.message, {
    code: error.code,
    fields: error instanceof ProcessingValidationError ? error.fields : undefined,
    feature: error instanceof ProcessingFeatureDisabledError ? error.feature : undefined,
    outcomeUnknown: error instanceof ProcessingConnectionError && error.outcomeUnknown,
    reason: bounded(serviceReason(error)),
    cause: error,
  });
}

function failureOf(error: ProcessingError): ServiceFailure {
  if (error instanceof ProcessingValidationError) {
    return error.isDuplicateForeignId ? 'duplicate_foreign_id' : 'refused';
  }
  if (error instanceof ProcessingBadContentError) return 'unreadable_request';
  if (error instanceof ProcessingFeatureDisabledError) return 'feature_disabled';
  if (error instanceof ProcessingInvalidStateError) return 'invalid_state';
  if (error instanceof ProcessingNotFoundError) return 'not_found';
  if (error instanceof ProcessingAuthError) return 'rejected_credentials';
  if (error instanceof ProcessingTimeoutError) return 'timeout';
  if (error instanceof ProcessingConnectionError)
    return error.outcomeUnknown ? 'connection_lost' : 'unreachable';
  return 'failed';
}
