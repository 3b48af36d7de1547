import {
  CallbackSignatureError,
  ConflictError,
  DomainError,
  InProgressError,
  InvalidFieldsError,
  NotConfiguredError,
  NotFoundError,
  NotReadyError,
  RefundBoundError,
  ServiceError,
  type DomainErrorCode,
  type Minimum,
  type Refundable,
  type ServiceFailure,
} from '../domain/errors';
import { RateLimitedError } from '../domain/request-limits';

/** The codes the HTTP layer answers with itself. */
export type HttpErrorCode =
  | 'invalid_request'
  | 'invalid_json'
  | 'unauthorized'
  | 'forbidden'
  | 'store_disabled'
  | 'store_not_found'
  | 'unsupported_media_type'
  | 'unrenderable_record'
  | 'secrets_timeout';

/** The codes a failed call to the payment service answers with. */
type ServiceAnswerCode =
  | 'rejected_by_processor'
  | 'duplicate_foreign_id'
  | 'invalid_state'
  | 'not_found'
  | 'feature_disabled'
  | 'processor_timeout'
  | 'processor_unreachable'
  | 'processor_auth_failed'
  | 'processor_error';

export type ErrorCode =
  DomainErrorCode | HttpErrorCode | ServiceAnswerCode | 'temporarily_unavailable' | 'internal_error';

/** Every error code's status, whichever tree raised it: a code without a status does not compile. */
export const ERROR_STATUSES = {
  invalid_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  forbidden: 403,
  invalid_signature: 403,
  store_disabled: 403,
  not_found: 404,
  store_not_found: 404,
  foreign_id_conflict: 409,
  duplicate_foreign_id: 409,
  in_progress: 409,
  invalid_invoice_state: 409,
  invalid_state: 409,
  payment_confirming: 409,
  invoice_paid: 409,
  refund_exceeds_refundable: 409,
  invoice_not_refundable: 409,
  too_many_refunds: 409,
  claim_taken: 409,
  claim_closed: 409,
  store_exists: 409,
  default_store: 409,
  shared_account: 409,
  unsupported_media_type: 415,
  rate_limited: 429,
  rejected_by_processor: 422,
  internal_error: 500,
  unrenderable_record: 500,
  processor_error: 502,
  processor_unreachable: 502,
  processor_auth_failed: 502,
  feature_disabled: 503,
  not_configured: 503,
  not_ready: 503,
  temporarily_unavailable: 503,
  processor_timeout: 504,
  secrets_timeout: 504,
} as const satisfies Record<ErrorCode, number>;

/** An error the HTTP layer raises itself: bad input, missing or wrong credentials. */
export class HttpError extends Error {
  override name = 'HttpError';
  readonly status: number;

  constructor(
    readonly code: HttpErrorCode,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.status = ERROR_STATUSES[code];
  }
}

export class InvalidRequestError extends HttpError {
  override name = 'InvalidRequestError';

  constructor(fields: Record<string, string>) {
    super('invalid_request', `Invalid fields: ${Object.keys(fields).join(', ')}`, fields);
  }
}

/**
 * A stored record holds a time no view can write (past JavaScript's dates, or not a time at all). Its own routes
 * answer this; lists, exports and webhooks go on without it (http/render-guard.ts). `field` names the view's field.
 */
export class UnrenderableRecordError extends HttpError {
  override name = 'UnrenderableRecordError';

  constructor(readonly field: string) {
    super('unrenderable_record', `The record's ${field} holds a time that cannot be shown`);
  }
}

export interface ErrorResponse {
  status: number;
  code: ErrorCode;
  message: string;
  fields?: Record<string, string>;
  /** What an order has left to refund, with `refund_exceeds_refundable`. */
  refundable?: Refundable;
  /** The service's minimum, with `rejected_by_processor` for an amount below it. */
  minimum?: Minimum;
  headers?: Record<string, string>;
}

/** Where our request names differ from the service's. Its `sender_currency` is the checkout's own name. */
const SERVICE_FIELD_NAMES: Record<string, string> = {
  email_user: 'email',
  sender_amount: 'debited_amount',
  received_currency: 'currency',
};

/** A travel-rule party's wire fields (processing/translate.ts) under the names our API gives them. */
const PARTY_FIELD_NAMES: Record<string, string> = {
  legal_name: 'company_name',
  country_of_registration: 'country',
};
const PARTY_FIELD = /^(sender|receiver)_(?:data(?:\.(.+))?|(type))$/;

function ourFieldName(name: string): string {
  const party = PARTY_FIELD.exec(name);
  if (!party) return SERVICE_FIELD_NAMES[name] ?? name;
  const field = party[2] ?? party[3];
  return field === undefined ? party[1] : `${party[1]}.${PARTY_FIELD_NAMES[field] ?? field}`;
}

function ourFields(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(fields).map(([name, text]) => [ourFieldName(name), text]));
}

/** Maps every error to a meaningful status; an unexpected one becomes a bare 500 with no details. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpError) return { ...answer(error.code, error.message), fields: error.fields };
  if (error instanceof ServiceError) return fromServiceError(error);
  if (error instanceof DomainError) return fromDomainError(error);
  if (awsUnavailable(error)) {
    return {
      ...answer(
        'temporarily_unavailable',
        'The table or the secret store is busy or unreachable; retry shortly',
      ),
      headers: { 'retry-after': '1' },
    };
  }
  return answer('internal_error', 'Internal error');
}

/** The answer with a code's status from the table. */
function answer(code: ErrorCode, message: string): ErrorResponse {
  return { status: ERROR_STATUSES[code], code, message };
}

/**
 * What the AWS SDK throws when DynamoDB or Secrets Manager is busy (a throttle), failing (5xx) or out of reach, and
 * what a call throws that the invocation had no time left to make (runtime/aws-clients.ts).
 */
const AWS_UNAVAILABLE = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'ServiceUnavailable',
  'TimeoutError',
  'NoTimeLeftError',
]);
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * Once the SDK's own retries are spent, such a failure is still passing: the caller may retry it, so it is a 503,
 * never an unexpected 500. The service's errors never come here (they are ServiceErrors).
 */
function awsUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { $fault, $metadata, code } = error as { $fault?: string; $metadata?: unknown; code?: string };
  return (
    AWS_UNAVAILABLE.has(error.name) ||
    $fault === 'server' ||
    ($metadata !== undefined && code !== undefined && NETWORK_CODES.has(code))
  );
}

function fromDomainError(error: DomainError): ErrorResponse {
  if (error instanceof InvalidFieldsError) {
    return { ...answer(error.code, error.message), fields: error.fields };
  }
  if (error instanceof InProgressError) {
    return {
      ...answer(error.code, error.message),
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof RateLimitedError) {
    return {
      ...answer(error.code, error.message),
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof NotReadyError) {
    return { ...answer(error.code, error.message), headers: { 'retry-after': '5' } };
  }
  if (error instanceof RefundBoundError) {
    return { ...answer(error.code, error.message), refundable: error.refundable };
  }
  if (
    error instanceof NotFoundError ||
    error instanceof ConflictError ||
    error instanceof NotConfiguredError ||
    error instanceof CallbackSignatureError
  ) {
    return answer(error.code, error.message);
  }
  return answer('internal_error', 'Internal error');
}

const NO_ANSWER = 'The payment service did not answer in time; retrying with the same foreign_id is safe';

/** What the caller is told when the payment service did not do what was asked. */
const SERVICE_FAILURES: Record<ServiceFailure, [code: ServiceAnswerCode, message: string]> = {
  refused: ['rejected_by_processor', 'The payment service refused the request'],
  duplicate_foreign_id: ['duplicate_foreign_id', 'The service already has this foreign_id'],
  invalid_state: ['invalid_state', 'The payment service refused this in the current state'],
  not_found: ['not_found', 'The payment service has no such record'],
  feature_disabled: ['feature_disabled', 'The merchant account does not have the feature enabled'],
  timeout: ['processor_timeout', NO_ANSWER],
  connection_lost: ['processor_timeout', NO_ANSWER],
  unreachable: ['processor_unreachable', 'The payment service could not be reached'],
  rejected_credentials: ['processor_auth_failed', 'The payment service refused our credentials'],
  failed: ['processor_error', 'The payment service failed to answer properly'],
  unreadable_request: ['processor_error', 'The payment service answered unexpectedly'],
};

function fromServiceError(error: ServiceError): ErrorResponse {
  const [code, message] = SERVICE_FAILURES[error.failure];
  if (error.failure === 'refused' && error.minimum) {
    const { amount, currency } = error.minimum;
    return {
      ...answer(code, `The amount is below the payment service's minimum of ${amount} ${currency}`),
      fields: ourFields(error.fields),
      minimum: error.minimum,
    };
  }
  if (error.failure === 'refused') return { ...answer(code, message), fields: ourFields(error.fields) };
  if (error.failure === 'feature_disabled' && error.feature) {
    return answer(code, `The merchant account does not have ${error.feature} enabled`);
  }
  return answer(code, message);
}
