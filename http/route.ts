import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { parse as parseLosslessly } from 'lossless-json';
import { CallbackSignatureError, serviceFailure } from '../domain/errors';
import { RateLimitedError } from '../domain/request-limits';
import { DEFAULT_STORE_ID, STORE_ID, type BearerTokens, type Caller, type StoreId } from '../domain/stores';
import { addLogContext, describeError, log } from '../observability/log';
import { countMetric } from '../observability/metrics';
import { invocation } from '../runtime/invocation';
import { HttpError, toErrorResponse, UnrenderableRecordError } from './errors';
import { FOREIGN_ID } from './validate';

export interface ApiRequest {
  /** The JSON body; numbers arrive as LosslessNumber, so amounts never pass through a float. */
  body: unknown;
  rawBody: Buffer;
  /** Header names in lower case. */
  headers: Record<string, string | undefined>;
  path: Record<string, string | undefined>;
  query: Record<string, string | undefined>;
}

export interface ApiResponse {
  status: number;
  /** Serialised as JSON, unless it is text of another type (`asText`). */
  body: unknown;
  headers?: Record<string, string>;
}

/** A body sent as it is, in the format the answer's `content-type` header names (such as a CSV export). */
class TextBody {
  constructor(readonly text: string) {}
}

export function asText(text: string): TextBody {
  return new TextBody(text);
}

type Event = APIGatewayProxyEventV2;
type Result = APIGatewayProxyStructuredResultV2;
/** The event once the body middleware has read it, and the auth middleware has named its caller. */
type RouteEvent = Event & {
  apiRequest?: ApiRequest;
  caller?: Caller;
  foldedHeaders?: Record<string, string | undefined>;
};
/** A route with no bearer token (a callback, the customer's read, the document) finds its store itself. */
const DEFAULT_CALLER: Caller = { storeId: DEFAULT_STORE_ID };
type RouteMiddleware = MiddlewareObj<RouteEvent, Result>;

/** Each store's requests a second (domain/request-limits.ts): past it, `admit` throws RateLimitedError. */
export interface RequestLimits {
  admit(storeId: StoreId): Promise<void>;
}

/**
 * A route's entry in lib/routes.ts says who may call it; a bearer route needs the tokens to check, and a store's
 * route its store's limit, which is spent once the token names the store and before the route does anything.
 */
type Guard =
  | { route: { access: 'service' | 'customer' | 'claimant' | 'public' }; tokens?: never; limits?: never }
  | { route: { access: 'platform' }; tokens: BearerTokens; limits?: never }
  | { route: { access: 'storefront' | 'admin' }; tokens: BearerTokens; limits: RequestLimits };

export type RouteOptions<T> = Guard & {
  /** Validates and shapes the input; throws InvalidRequestError naming the fields. */
  input: (request: ApiRequest) => T;
};

/**
 * The one chain every route uses, as middy middlewares: the invocation's deadline and log context, error mapping,
 * auth by scope and body parsing; then the input is validated, `run` answers, and the answer is serialised.
 * Middy's own early timeout is off: every call to the service budgets its time from the invocation's deadline.
 */
export function apiRoute<T>(
  options: RouteOptions<T>,
  run: (input: T, caller: Caller) => Promise<ApiResponse>,
) {
  const handler = middy(
    async (event: RouteEvent): Promise<Result> => {
      const request = event.apiRequest as ApiRequest;
      const input = options.input(request);
      addLogContext({ foreignId: foreignIdOf(request) });
      return json(await run(input, event.caller ?? DEFAULT_CALLER));
    },
    { timeoutEarlyInMillis: 0 },
  );
  if (options.route.access === 'customer') handler.use(fromAnyOrigin);
  return handler
    .use(invocation<RouteEvent, Result>((event) => event.routeKey))
    .use(errorAnswers)
    .use(bearerAuth(options))
    .use(body(options.route.access !== 'service'));
}

/** Any error becomes its JSON answer (http/errors.ts), logged and counted. */
const errorAnswers: RouteMiddleware = {
  onError: (request) => {
    request.response = errorResponse(request.error);
  },
};

function bearerAuth(guard: Guard): RouteMiddleware {
  return { before: ({ event }) => authorize(guard, event) };
}

/** The request as routes read it; a JSON body parsed losslessly unless `parseJson` is false (signed callbacks). */
function body(parseJson: boolean): RouteMiddleware {
  return {
    before: (request) => {
      request.event.apiRequest = toApiRequest(request.event, parseJson);
    },
  };
}

/**
 * A customer route is read by the widget on the shop's page, whatever its origin: every answer may be read there,
 * its ETag included, and the preflight allows the headers the widget sends. No credentials: it holds no token.
 * The preflight is answered before the invocation starts, as it runs none of the route.
 */
const ANY_ORIGIN = {
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'etag',
};
const PREFLIGHT: Result = {
  statusCode: 204,
  headers: {
    ...ANY_ORIGIN,
    'access-control-allow-methods': 'GET',
    'access-control-allow-headers': 'x-client-secret, if-none-match',
    // Chromium's cap: one preflight per two hours per page, not one per poll.
    'access-control-max-age': '7200',
  },
};

const withAnyOrigin: RouteMiddleware['after'] = (request) => {
  if (request.response) {
    request.response = { ...request.response, headers: { ...request.response.headers, ...ANY_ORIGIN } };
  }
};

const fromAnyOrigin: RouteMiddleware = {
  before: ({ event }) => (event.requestContext.http.method === 'OPTIONS' ? PREFLIGHT : undefined),
  after: withAnyOrigin,
  onError: withAnyOrigin,
};

/** The foreign_id a valid request names in its path, body or query; only text of that form reaches a log. */
function foreignIdOf({ path, body, query }: ApiRequest): string | undefined {
  const named =
    path.foreign_id ?? (body as { foreign_id?: unknown } | undefined)?.foreign_id ?? query.foreign_id;
  return typeof named === 'string' && FOREIGN_ID.test(named) ? named : undefined;
}

function errorResponse(error: unknown): Result {
  const mapped = toErrorResponse(error);
  const failure = serviceFailure(error);
  if (failure === 'failed' || failure === 'timeout') {
    countMetric('UpstreamServerErrors');
  }
  if (error instanceof CallbackSignatureError) countMetric('CallbackSignatureFailures');
  if (error instanceof UnrenderableRecordError) countMetric('UnrenderableRecords');
  const fields = { ...describeError(error), status: mapped.status };
  // A refusal over a store's limit is counted, not logged: a runaway script would double the log's bill.
  if (error instanceof RateLimitedError) countMetric('StoreRateLimited', 1, { Store: error.storeId });
  else if (mapped.status >= 500) log.error('request failed', fields);
  else log.warn('request refused', fields);
  const { status, code, message, fields: invalid, refundable, minimum, headers } = mapped;
  return json({ status, headers, body: { error: { code, message, fields: invalid, refundable, minimum } } });
}

/**
 * Names the caller: the store its token belongs to, or for the platform token the store in `Store-Id` (else the
 * default one). A storefront token opens storefront routes, an admin token admin routes too, the platform token
 * every route; a disabled store's routes answer 403 `store_disabled` (its callbacks and webhooks go on). Then a
 * store's request is counted against its limit: past it, 429 `rate_limited`.
 */
async function authorize(guard: Guard, event: RouteEvent): Promise<void> {
  // The service signs its callbacks instead (the handler verifies the signature), and a public route needs none.
  if (guard.tokens === undefined) return;
  const { route, tokens } = guard;
  const access = route.access;
  const headers = foldedHeaders(event);
  const header = headers.authorization;
  const match = header && /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new HttpError('unauthorized', 'A bearer token is required');
  const holder = await tokens.holderOf(match[1]);
  if (!holder) throw new HttpError('unauthorized', 'The bearer token is not valid');
  const named = headers['store-id'];
  if (named !== undefined && !STORE_ID.test(named)) {
    throw new HttpError('invalid_request', 'Invalid fields: Store-Id', {
      'Store-Id': 'must be a store id: lowercase letters, digits and "-", at most 32',
    });
  }
  if (holder.scope !== 'platform') {
    if (access === 'platform') throw new HttpError('forbidden', 'This route needs the platform token');
    if (access === 'admin' && holder.scope === 'storefront') {
      throw new HttpError('forbidden', 'This route needs the admin token');
    }
    if (named !== undefined && named !== holder.storeId) {
      throw new HttpError('forbidden', 'Only the platform token may act for another store with Store-Id');
    }
  }
  const storeId = holder.storeId ?? named ?? DEFAULT_STORE_ID;
  event.caller = { storeId, scope: holder.scope };
  // The platform's own routes (/stores) name their store in the path, if any.
  if (access === 'platform') return;
  const status = holder.status ?? (await tokens.statusOf(storeId));
  if (status === undefined) throw new HttpError('store_not_found', 'The store was not found');
  if (status === 'disabled') throw new HttpError('store_disabled', 'The store is disabled');
  await guard.limits?.admit(storeId);
}

/** The headers with lower-case names, folded once for auth and the request: API Gateway sends them so already. */
function foldedHeaders(event: RouteEvent): Record<string, string | undefined> {
  if (event.foldedHeaders) return event.foldedHeaders;
  const given = event.headers ?? {};
  event.foldedHeaders = Object.keys(given).every((key) => key === key.toLowerCase())
    ? given
    : Object.fromEntries(Object.entries(given).map(([key, value]) => [key.toLowerCase(), value]));
  return event.foldedHeaders;
}

/** No body is the common case (every GET): one empty buffer serves them all, as none can be written to. */
const NO_BODY = Buffer.alloc(0);

function toApiRequest(event: RouteEvent, parseJson: boolean): ApiRequest {
  const rawBody = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : NO_BODY;
  const headers = foldedHeaders(event);
  return {
    rawBody,
    headers,
    body: parseJson && rawBody.length > 0 ? parseJsonBody(rawBody, headers['content-type']) : undefined,
    path: event.pathParameters ?? {},
    query: event.queryStringParameters ?? {},
  };
}

/** `application/json`, with parameters such as charset or not; `application/json-patch+json` is another format. */
const JSON_CONTENT_TYPE = /^application\/json\s*(?:;|$)/i;
/** Far deeper than any body of this API; the lossless reader recurses, so this also keeps it off the stack's end. */
const MAX_DEPTH = 32;

function parseJsonBody(rawBody: Buffer, contentType: string | undefined): unknown {
  if (!contentType || !JSON_CONTENT_TYPE.test(contentType)) {
    throw new HttpError('unsupported_media_type', 'The body must be application/json');
  }
  const text = rawBody.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson('The body is not valid JSON');
  }
  const shape = shapeOf(value);
  if (shape.depth > MAX_DEPTH) throw invalidJson(`The body is nested more than ${MAX_DEPTH} levels deep`);
  // JSON.parse keeps the last of repeated keys silently; the text has more keys than the objects then.
  if (shape.keys !== keysWritten(text))
    throw invalidJson('The body is not valid JSON: duplicate keys are refused');
  // Only a body with a JSON number needs the slower lossless reading, so that an amount keeps every digit.
  if (!shape.hasNumber) return value;
  try {
    return parseLosslessly(text);
  } catch {
    throw invalidJson('The body is not valid JSON');
  }
}

function invalidJson(message: string): HttpError {
  return new HttpError('invalid_json', message);
}

/**
 * Whether a parsed body holds a number, how many keys its objects have, and how deep it nests (up to one level
 * past MAX_DEPTH). Iterative and without spreading, so that neither a deep nor a wide body exhausts the stack.
 */
function shapeOf(value: unknown): { hasNumber: boolean; keys: number; depth: number } {
  let hasNumber = false;
  let keys = 0;
  let depth = 0;
  const pending = [value];
  const levels = [0];
  while (pending.length > 0) {
    const next = pending.pop();
    const level = (levels.pop() as number) + 1;
    if (typeof next === 'number') hasNumber = true;
    if (typeof next !== 'object' || next === null) continue;
    depth = Math.max(depth, level);
    if (depth > MAX_DEPTH) break;
    const children = Object.values(next);
    if (!Array.isArray(next)) keys += children.length;
    for (const child of children) {
      pending.push(child);
      levels.push(level);
    }
  }
  return { hasNumber, keys, depth };
}

const [QUOTE, BACKSLASH, COLON] = ['"', '\\', ':'].map((char) => char.charCodeAt(0));

/** In valid JSON every colon outside a string follows a key. */
function keysWritten(text: string): number {
  let keys = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === BACKSLASH) i += 1;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (code === COLON) keys += 1;
  }
  return keys;
}

function json({ status, body, headers }: ApiResponse): Result {
  // A 304 carries no body (RFC 9110 15.4.5).
  if (status === 304) return { statusCode: status, headers: { 'cache-control': 'no-store', ...headers } };
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
    body: body instanceof TextBody ? body.text : JSON.stringify(body),
  };
}
