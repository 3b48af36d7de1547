// Between the domain's types and the service's words: requests out, answers and errors in.
import { Decimal } from '../domain/decimal';
import { ServiceError, type ServiceFailure } from '../domain/errors';
import type {
  CheckoutRequest,
  InvoiceDetails,
  Payment,
  RefundRequest,
  Settlement,
  WithdrawalDetails,
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
  ProcessingValidationError,
  serviceReason,
} from './errors';
import { MAX_AMOUNT_DIGITS } from './json';
import type { CreateInvoiceRequest, Invoice, Withdrawal, WithdrawalRequest } from './wire';

export function invoiceRequest(upstreamForeignId: string, request: CheckoutRequest): CreateInvoiceRequest {
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
  };
}

export function withdrawalRequest(request: RefundRequest): WithdrawalRequest {
  return {
    foreign_id: request.foreignId,
    sender_currency: request.senderCurrency,
    received_currency: request.receivedCurrency,
    sender_amount: request.senderAmount,
    address: request.address,
    end_user_reference: request.endUserReference,
  };
}

export function invoiceDetails(invoice: Invoice): InvoiceDetails {
  return {
    id: invoice.id,
    url: invoice.url,
    address: invoice.address,
    tag: invoice.tag ?? null,
    amount: invoice.amount,
    senderCurrency: invoice.sender_currency,
    senderAmount: invoice.sender_amount,
    fixedAt: invoice.fixed_at,
    releaseAt: invoice.release_at,
  };
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
    currency: sent.currency,
    amount: sent.amount,
    remainingAmount: isAmount(sent.remaining_amount) ? sent.remaining_amount : undefined,
  };
}

/** The payment, the settlement and the expiry a transaction record or an invoice's callback reports. */
export function moneyNews(reported: {
  currency_sent?: Reported;
  currency_received?: Reported;
  fees?: unknown;
  expires_at?: unknown;
}): { payment?: Payment; settlement?: Settlement; expiresAt?: number } {
  const { expires_at: expiresAt } = reported;
  return {
    payment: paymentOf(reported.currency_sent),
    settlement: settlementOf(reported.currency_received, reported.fees),
    // Unix seconds; the service extends it to 24 hours once a payment is seen.
    ...(Number.isSafeInteger(expiresAt) && (expiresAt as number) > 0 && { expiresAt: expiresAt as number }),
  };
}

/** What was credited (`currency_received`) and the fees charged (`fees[]`); none without a readable amount. */
export function settlementOf(received: Reported, fees: unknown): Settlement | undefined {
  if (!isReported(received)) return undefined;
  const sums = new Map<string, Decimal>();
  for (const fee of Array.isArray(fees) ? (fees as Reported[]) : []) {
    if (isReported(fee)) sums.set(fee.currency, (sums.get(fee.currency) ?? new Decimal(0)).plus(fee.amount));
  }
  return {
    currency: received.currency,
    net: fixed8(new Decimal(received.amount)),
    fees: [...sums.keys()].sort().map((currency) => ({ currency, amount: fixed8(sums.get(currency)!) })),
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

/** Longest text of the service's we store: a signed 1 MB `error` must not push a record past DynamoDB's item limit. */
export const SERVICE_TEXT_MAX = 500;

function bounded(text: string): string {
  return text.length <= SERVICE_TEXT_MAX ? text : `${text.slice(0, SERVICE_TEXT_MAX - 1)}…`;
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
