import {
  ConflictError,
  DomainError,
  InProgressError,
  NotConfiguredError,
  NotFoundError,
  NotReadyError,
} from '../domain/errors';
import { CallbackSignatureError } from '../domain/callbacks';
import {
  ProcessingAuthError,
  ProcessingConnectionError,
  ProcessingError,
  ProcessingFeatureDisabledError,
  ProcessingInvalidStateError,
  ProcessingNotFoundError,
  ProcessingTimeoutError,
  ProcessingUpstreamError,
  ProcessingValidationError,
} from '../processing/errors';

/** An error the HTTP layer raises itself: bad input, missing or wrong credentials. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }
}

export class InvalidRequestError extends HttpError {
  constructor(fields: Record<string, string>) {
    super(400, 'invalid_request', `Invalid fields: ${Object.keys(fields).join(', ')}`, fields);
  }
}

export interface ErrorResponse {
  status: number;
  code: string;
  message: string;
  fields?: Record<string, string>;
  headers?: Record<string, string>;
}

/** Our request names differ from the service's in one place. */
const SERVICE_FIELD_NAMES: Record<string, string> = { email_user: 'email' };

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
  if (error instanceof DomainError) return fromDomainError(error);
  if (error instanceof ProcessingError) return fromProcessingError(error);
  return { status: 500, code: 'internal_error', message: 'Internal error' };
}

function fromDomainError(error: DomainError): ErrorResponse {
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
  if (error instanceof ConflictError) return { status: 409, code: error.code, message: error.message };
  return { status: 500, code: 'internal_error', message: 'Internal error' };
}

function fromProcessingError(error: ProcessingError): ErrorResponse {
  if (error instanceof ProcessingValidationError) {
    if (error.isDuplicateForeignId) {
      return {
        status: 409,
        code: 'duplicate_foreign_id',
        message: 'The service already has this foreign_id',
      };
    }
    return {
      status: 422,
      code: 'rejected_by_processor',
      message: 'The payment service refused the request',
      fields: ourFields(error.fields),
    };
  }
  if (error instanceof ProcessingInvalidStateError) {
    return {
      status: 409,
      code: 'invalid_state',
      message: 'The payment service refused this in the current state',
    };
  }
  if (error instanceof ProcessingNotFoundError) {
    return { status: 404, code: 'not_found', message: 'The payment service has no such record' };
  }
  if (error instanceof ProcessingFeatureDisabledError) {
    return {
      status: 503,
      code: 'feature_disabled',
      message: `The merchant account does not have ${error.feature ?? 'the feature'} enabled`,
    };
  }
  if (error instanceof ProcessingConnectionError) {
    return error.outcomeUnknown || error instanceof ProcessingTimeoutError
      ? {
          status: 504,
          code: 'processor_timeout',
          message: 'The payment service did not answer in time; retrying with the same foreign_id is safe',
        }
      : { status: 502, code: 'processor_unreachable', message: 'The payment service could not be reached' };
  }
  if (error instanceof ProcessingAuthError) {
    return {
      status: 502,
      code: 'processor_auth_failed',
      message: 'The payment service refused our credentials',
    };
  }
  if (error instanceof ProcessingUpstreamError) {
    return { status: 502, code: 'processor_error', message: 'The payment service failed to answer properly' };
  }
  return { status: 502, code: 'processor_error', message: 'The payment service answered unexpectedly' };
}
