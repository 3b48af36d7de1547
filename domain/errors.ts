/** The codes a missing record answers with. */
export type NotFoundCode = 'not_found' | 'store_not_found';

/** The codes a conflict answers with. */
export type ConflictCode =
  | 'foreign_id_conflict'
  | 'duplicate_foreign_id'
  | 'in_progress'
  | 'invalid_invoice_state'
  | 'payment_confirming'
  | 'invoice_paid'
  | 'refund_exceeds_refundable'
  | 'invoice_not_refundable'
  | 'too_many_refunds'
  | 'claim_taken'
  | 'claim_closed'
  | 'store_exists'
  | 'default_store'
  | 'shared_account';

/** Every code a domain error of a known kind answers with; http/errors.ts gives each its status. */
export type DomainErrorCode =
  | NotFoundCode
  | ConflictCode
  | 'invalid_request'
  | 'not_ready'
  | 'not_configured'
  | 'invalid_signature'
  | 'rate_limited';

/**
 * Errors the domain raises on purpose; the HTTP layer maps each to a status. Each class names itself: bundles
 * minify class names (lib/bundling.ts), and a log line's `errorType` goes by the name.
 */
export class DomainError<Code extends string = string> extends Error {
  override name = 'DomainError';

  constructor(
    readonly code: Code,
    message: string,
  ) {
    super(message);
  }
}

export class NotFoundError extends DomainError<NotFoundCode> {
  override name = 'NotFoundError';

  constructor(what: string, code: NotFoundCode = 'not_found') {
    super(code, `${what} was not found`);
  }
}

/** The request disagrees with what the store already holds, or the record's state does not allow it. */
export class ConflictError extends DomainError<ConflictCode> {
  override name = 'ConflictError';
}

/** What an order has left to refund: its net credited less its refunds that are not failed. */
export interface Refundable {
  amount: string;
  currency: string;
}

/** A refund over what its order has left; the answer names what is left. */
export class RefundBoundError extends ConflictError {
  override name = 'RefundBoundError';

  constructor(readonly refundable: Refundable) {
    super(
      'refund_exceeds_refundable',
      `At most ${refundable.amount} ${refundable.currency} of this order is left to refund`,
    );
  }
}

/** Another request is working on the same foreign_id right now; retrying shortly will converge. */
export class InProgressError extends DomainError<'in_progress'> {
  override name = 'InProgressError';

  constructor(readonly retryAfterSeconds: number) {
    super('in_progress', 'Another request for this foreign_id is in progress; retry shortly');
  }
}

/** Fields the domain refuses by a rule the request's schema cannot state (a URL we may not send to); nothing is written. */
export class InvalidFieldsError extends DomainError<'invalid_request'> {
  override name = 'InvalidFieldsError';

  constructor(readonly fields: Record<string, string>) {
    super('invalid_request', `Invalid fields: ${Object.keys(fields).join(', ')}`);
  }
}

/** The record is mid-change (its create has not been recorded yet); the sender should retry later. */
export class NotReadyError extends DomainError<'not_ready'> {
  override name = 'NotReadyError';

  constructor(what: string) {
    super('not_ready', `${what} is not ready yet; retry later`);
  }
}

/** The deployment is missing configuration an operator must provide. */
export class NotConfiguredError extends DomainError<'not_configured'> {
  override name = 'NotConfiguredError';

  constructor(message: string) {
    super('not_configured', message);
  }
}

/** A callback whose signature is missing or wrong: not news from the service. */
export class CallbackSignatureError extends DomainError<'invalid_signature'> {
  override name = 'CallbackSignatureError';

  constructor() {
    super('invalid_signature', 'The callback signature is missing or wrong');
  }
}

/**
 * How a call to the payment service failed, as far as the domain cares:
 * - `refused`: it refused the request's fields (`fields` says which); nothing was made.
 * - `duplicate_foreign_id`: it already holds something under the foreign_id.
 * - `unreadable_request`: it could not read the request's format; nothing was made.
 * - `feature_disabled`: the merchant account lacks the feature (`feature`).
 * - `invalid_state`: the record's state there does not allow it (an invoice that can no longer be cancelled).
 * - `not_found`: it has no such record.
 * - `rejected_credentials`: it refused our keys.
 * - `failed`: it failed, or answered something unreadable; a create may have been made.
 * - `unreachable`: the request surely never reached it.
 * - `connection_lost`: the connection broke after the request was sent; it may have been processed.
 * - `timeout`: no answer in time (`outcomeUnknown` says whether the request may have been processed).
 */
export type ServiceFailure =
  | 'refused'
  | 'duplicate_foreign_id'
  | 'unreadable_request'
  | 'feature_disabled'
  | 'invalid_state'
  | 'not_found'
  | 'rejected_credentials'
  | 'failed'
  | 'unreachable'
  | 'connection_lost'
  | 'timeout';

export interface ServiceErrorDetails {
  /** The service's code for it, or the connection's; for logs. */
  code: string;
  /** `refused`: a message per field, in the service's field names. */
  fields?: Record<string, string>;
  /** `feature_disabled`: the feature the service named, e.g. `invoices_enabled`. */
  feature?: string;
  /** True when the request may have been processed although no answer says so. */
  outcomeUnknown?: boolean;
  /** The service's own words for it, fit to show a caller; the message when absent. */
  reason?: string;
  /** `refused` on an amount below the service's minimum: that minimum, when the pairs tell it. */
  minimum?: Minimum;
  cause?: unknown;
}

/** The least amount the service takes for an invoice, in the order's currency. */
export interface Minimum {
  amount: string;
  currency: string;
}

/** The payment service did not do what was asked. The message never carries a key or a signature. */
export class ServiceError extends DomainError {
  override name = 'ServiceError';
  readonly fields: Record<string, string>;
  readonly feature?: string;
  readonly outcomeUnknown: boolean;
  /** What the service itself said (a refused field's words, its message or its code), without our operation. */
  readonly reason: string;
  readonly minimum?: Minimum;

  constructor(
    readonly failure: ServiceFailure,
    message: string,
    details: ServiceErrorDetails,
  ) {
    super(details.code, message);
    if (details.cause !== undefined) this.cause = details.cause;
    this.fields = details.fields ?? {};
    this.feature = details.feature;
    this.outcomeUnknown = details.outcomeUnknown ?? false;
    this.reason = details.reason ?? message;
    this.minimum = details.minimum;
  }
}

/** The failure of a call to the service, if `error` is one. */
export function serviceFailure(error: unknown): ServiceFailure | undefined {
  return error instanceof ServiceError ? error.failure : undefined;
}

/**
 * True when the service surely did nothing with the request, though it did not refuse it for good: the request
 * never reached it (unreachable, out of time before it was sent, or no keys to send it with), or it refused our keys.
 */
export function surelyNotProcessed(error: unknown): boolean {
  if (error instanceof NotConfiguredError) return true;
  const failure = serviceFailure(error);
  if (failure === 'timeout') return !(error as ServiceError).outcomeUnknown;
  return failure === 'unreachable' || failure === 'rejected_credentials';
}
