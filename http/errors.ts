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
  type Refundable,
  type ServiceFailure,
} from '../domain/errors';

/** An error the HTTP layer raises itself: bad input, missing or wrong credentials. */
export class HttpError extends Error {
  override name = 'HttpError';

  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

export class InvalidRequestError extends HttpError {
  override name = 'InvalidRequestError';

  constructor(fields: Record<string, string>) {
    super(400, 'invalid_request', `Invalid fields: ${Object.keys(fields).join(', ')}`, fields);
  }
}

/**
 * A stored record holds a time no view can write (past JavaScript's dates, or not a time at all). Its own routes
 * answer this; lists, exports and webhooks go on without it (http/render-guard.ts). `field` names the view's field.
 */
export class UnrenderableRecordError extends HttpError {
  override name = 'UnrenderableRecordError';

  constructor(readonly field: string) {
    super(500, 'unrenderable_record', `The record's ${field} holds a time that cannot be shown`);
  }
}

export interface ErrorResponse {
  status: number;
  code: string;
  message: string;
  fields?: Record<string, string>;
  /** What an order has left to refund, with `refund_exceeds_refundable`. */
  refundable?: Refundable;
  headers?: Record<string, string>;
}

/** Where our request names differ from the service's. Its `sender_currency` is the checkout's own name. */
const SERVICE_FIELD_NAMES: Record<string, string> = {
  email_user: 'email',
  sender_amount: 'debited_amount',
  received_currency: 'currency',
};

function ourFields(fields: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, text]) => [SERVICE_FIELD_NAMES[name] ?? name, text]),
  );
}

/** Maps every error to a meaningful status; an unexpected one becomes a bare 500 with no details. */
export function toErrorResponse(error: unknown): ErrorResponse {
  if (error instanceof HttpError) {
    return { status: error.status, code: error.code, message: error.message, fields: error.fields };
  }
  if (error instanceof ServiceError) return fromServiceError(error);
  if (error instanceof DomainError) return fromDomainError(error);
  if (awsUnavailable(error)) {
    return {
      status: 503,
      code: 'temporarily_unavailable',
      message: 'The table or the secret store is busy or unreachable; retry shortly',
      headers: { 'retry-after': '1' },
    };
  }
  return { status: 500, code: 'internal_error', message: 'Internal error' };
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
    return { status: 400, code: error.code, message: error.message, fields: error.fields };
  }
  if (error instanceof NotFoundError) return { status: 404, code: error.code, message: error.message };
  if (error instanceof InProgressError) {
    return {
      status: 409,
      code: error.code,
      message: error.message,
      headers: { 'retry-after': String(error.retryAfterSeconds) },
    };
  }
  if (error instanceof NotConfiguredError) return { status: 503, code: error.code, message: error.message };
  if (error instanceof NotReadyError) {
    return { status: 503, code: error.code, message: error.message, headers: { 'retry-after': '5' } };
  }
  if (error instanceof CallbackSignatureError)
    return { status: 403, code: error.code, message: error.message };
  if (error instanceof RefundBoundError) {
    return { status: 409, code: error.code, message: error.message, refundable: error.refundable };
  }
  if (error instanceof ConflictError) return { status: 409, code: error.code, message: error.message };
  return { status: 500, code: 'internal_error', message: 'Internal error' };
}

const NO_ANSWER = 'The payment service did not answer in time; retrying with the same foreign_id is safe';

/** What the caller is told when the payment service did not do what was asked. */
const SERVICE_FAILURES: Record<ServiceFailure, [status: number, code: string, message: string]> = {
  refused: [422, 'rejected_by_processor', 'The payment service refused the request'],
  duplicate_foreign_id: [409, 'duplicate_foreign_id', 'The service already has this foreign_id'],
  invalid_state: [409, 'invalid_state', 'The payment service refused this in the current state'],
  not_found: [404, 'not_found', 'The payment service has no such record'],
  feature_disabled: [503, 'feature_disabled', 'The merchant account does not have the feature enabled'],
  timeout: [504, 'processor_timeout', NO_ANSWER],
  connection_lost: [504, 'processor_timeout', NO_ANSWER],
  unreachable: [502, 'processor_unreachable', 'The payment service could not be reached'],
  rejected_credentials: [502, 'processor_auth_failed', 'The payment service refused our credentials'],
  failed: [502, 'processor_error', 'The payment service failed to answer properly'],
  unreadable_request: [502, 'processor_error', 'The payment service answered unexpectedly'],
};

function fromServiceError(error: ServiceError): ErrorResponse {
  const [status, code, message] = SERVICE_FAILURES[error.failure];
  if (error.failure === 'refused') return { status, code, message, fields: ourFields(error.fields) };
  if (error.failure === 'feature_disabled' && error.feature) {
    return { status, code, message: `The merchant account does not have ${error.feature} enabled` };
  }
  return { status, code, message };
}
