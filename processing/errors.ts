// The client's typed errors, one small tree in the manner of stripe-node's StripeError.
// Messages and fields come from the service's answer (redacted by the sender); keys never enter them.

export interface ProcessingErrorInit {
  operation: string;
  code: string;
  message: string;
  status?: number;
  rawBody?: string;
  cause?: unknown;
}

export class ProcessingError extends Error {
  // Each class names itself: bundles minify class names (lib/bundling.ts), and logs go by the name.
  override name = 'ProcessingError';
  readonly operation: string;
  readonly code: string;
  readonly status?: number;
  readonly rawBody?: string;

  constructor(init: ProcessingErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.operation = init.operation;
    this.code = init.code;
    this.status = init.status;
    this.rawBody = init.rawBody;
  }
}

/** Field validation: the service's 400 `errors` map, or an argument refused before sending (no status). */
export class ProcessingValidationError extends ProcessingError {
  override name = 'ProcessingValidationError';
  readonly fields: Record<string, string>;

  constructor(init: ProcessingErrorInit & { fields: Record<string, string> }) {
    super(init);
    this.fields = init.fields;
  }

  /** The spec lists "duplicate foreign_id" among the field failures without giving its wording. */
  get isDuplicateForeignId(): boolean {
    const message = this.fields.foreign_id;
    return message !== undefined && /taken|exist|duplicate|unique|already/i.test(message);
  }
}

export class ProcessingFeatureDisabledError extends ProcessingError {
  override name = 'ProcessingFeatureDisabledError';
  /** The feature the message names, e.g. `invoices_enabled`. */
  readonly feature?: string;

  constructor(init: ProcessingErrorInit & { feature?: string }) {
    super(init);
    this.feature = init.feature;
  }
}

/**
 * The base of an error kind that adds nothing but its name: spelled out, since bundles minify class names
 * (lib/bundling.ts).
 */
function kind(errorName: string) {
  return class extends ProcessingError {
    override name = errorName;
  };
}

export class ProcessingBadContentError extends kind('ProcessingBadContentError') {}

/** 403: `bad_header_signature`, `required_header_signature`, `bad_header_key` or `required_header_key`. */
export class ProcessingAuthError extends kind('ProcessingAuthError') {}

/** The invoice cannot be cancelled in its current state (`invalid_invoice_state`). */
export class ProcessingInvalidStateError extends kind('ProcessingInvalidStateError') {}

export class ProcessingNotFoundError extends kind('ProcessingNotFoundError') {}

/** 5xx, or an answer the client cannot read. */
export class ProcessingUpstreamError extends kind('ProcessingUpstreamError') {}

/** What a time the service gives must be; SERVICE_TIME_RANGE in domain/model.ts holds the bounds. */
export const SERVICE_TIME_RULE = 'must be whole Unix seconds from 2000-01-01 to 9999-12-31 UTC';

/**
 * A time in an answer or callback outside the range a record keeps: the whole answer is refused, never stored.
 * `field` is the service's name for it.
 */
export class ProcessingTimeRangeError extends ProcessingUpstreamError {
  override name = 'ProcessingTimeRangeError';

  constructor(
    operation: string,
    readonly field: string,
  ) {
    super({ operation, code: 'invalid_response', message: `${operation}: ${field} ${SERVICE_TIME_RULE}` });
  }
}

export class ProcessingConnectionError extends ProcessingError {
  override name = 'ProcessingConnectionError';
  /** False only when the request surely never reached the service; true means it may have been processed. */
  readonly outcomeUnknown: boolean;

  constructor(init: ProcessingErrorInit & { outcomeUnknown: boolean }) {
    super(init);
    this.outcomeUnknown = init.outcomeUnknown;
  }
}

/**
 * No answer in time: one of the configured timeouts, or the invocation's deadline (`deadline_exceeded`), which
 * may also have kept the request from being sent at all (then `outcomeUnknown` is false).
 */
export class ProcessingTimeoutError extends ProcessingConnectionError {
  override name = 'ProcessingTimeoutError';
}

const AUTH_REJECTIONS_HEALED_BY_REFRESH = new Set(['bad_header_key', 'bad_header_signature']);

/** True for the 403s a stale key or secret causes; nothing was done, so refreshing keys and re-sending is safe. */
export function isStaleKeyRejection(error: unknown): boolean {
  return error instanceof ProcessingAuthError && AUTH_REJECTIONS_HEALED_BY_REFRESH.has(error.code);
}

/**
 * What the service itself said of a refusal, without our operation name or HTTP status, so that it may be shown to
 * a caller: the fields it refused with its words for each, else its message, else its code.
 */
export function serviceReason(error: ProcessingError): string {
  if (error instanceof ProcessingValidationError) return fieldList(error.fields);
  const body = parseObject(error.rawBody ?? '');
  return text(body?.error) ?? text(body?.message) ?? error.code;
}

/** Maps a non-2xx answer to its typed error (spec section 7). */
export function errorFromResponse(operation: string, status: number, rawBody: string): ProcessingError {
  const body = parseObject(rawBody);
  const base = { operation, status, rawBody };
  const code = typeof body?.code === 'string' ? body.code : undefined;
  const said = (fallback: string) => text(body?.error) ?? text(body?.message) ?? fallback;
  const message = (detail: string) => `${operation}: ${detail} (HTTP ${status})`;

  if (status >= 500) {
    return new ProcessingUpstreamError({
      ...base,
      code: code ?? 'upstream_error',
      message: message(said('server error')),
    });
  }
  if (status === 403) {
    return new ProcessingAuthError({
      ...base,
      code: code ?? 'forbidden',
      message: message(said('forbidden')),
    });
  }
  if (status === 404) {
    return new ProcessingNotFoundError({
      ...base,
      code: code ?? 'not_found',
      message: message(said('not found')),
    });
  }
  if (code === 'bad_content_format') {
    return new ProcessingBadContentError({ ...base, code, message: message(said('bad content format')) });
  }
  const errors = isRecord(body?.errors) ? body.errors : undefined;
  if (code === 'invalid_invoice_state' || errors?.code === 'invalid_invoice_state') {
    const detail = said(text(errors?.error) ?? text(errors?.message) ?? 'invalid invoice state');
    return new ProcessingInvalidStateError({
      ...base,
      code: 'invalid_invoice_state',
      message: message(detail),
    });
  }
  if (status === 400 && errors) {
    const fields = fieldMessages(errors);
    return new ProcessingValidationError({
      ...base,
      code: 'validation_error',
      message: message(`validation failed: ${fieldList(fields)}`),
      fields,
    });
  }
  if (status === 400 && typeof body?.message === 'string') {
    // The only documented 400 carrying just `message` is "feature disabled", naming e.g. invoices_enabled.
    const feature = /\b[a-z_]+_enabled\b/.exec(body.message)?.[0];
    return new ProcessingFeatureDisabledError({
      ...base,
      code: 'feature_disabled',
      message: message(body.message),
      feature,
    });
  }
  return new ProcessingUpstreamError({
    ...base,
    code: 'unexpected_response',
    message: message(said('unexpected answer')),
  });
}

type JsonObject = Record<string, unknown>;

function parseObject(rawBody: string): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(rawBody);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** One message per field; tolerates Laravel-style arrays of messages. */
/** A travel-rule party's fields: the service's words on them may quote the person's data back. */
const PERSONAL_FIELD = /^(sender|receiver)_(data|type)\b/;

function fieldMessages(errors: JsonObject): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [field, value] of Object.entries(errors)) {
    fields[field] = PERSONAL_FIELD.test(field)
      ? 'refused by the payment service'
      : Array.isArray(value)
        ? value.map(String).join('; ')
        : String(value);
  }
  return fields;
}

function fieldList(fields: JsonObject): string {
  return Object.entries(fields)
    .map(([field, value]) => `${field}: ${String(value)}`)
    .join(', ');
}
