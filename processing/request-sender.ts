// The one place that talks to the service: signing, timeouts, retries, key healing, error parsing, and the
// time budget: no call outlives the invocation's deadline (given by `deadline`, see runtime/deadline.ts).
import type { KeySource, ProcessingKeys } from '../domain/ports';
import {
  ProcessingConnectionError,
  ProcessingTimeoutError,
  ProcessingUpstreamError,
  errorFromResponse,
  isStaleKeyRejection,
} from './errors';
import { HttpTransport, TimeoutError, type ExchangeResult } from './http-exchange';
import { parseJson } from './json';
import { signatureHeaders } from './signing';

/**
 * `read`: retried on connection errors and 5xx. `unsent`: retried only when the request surely never reached
 * the service. `never`: not retried. A stale-key 403 is re-sent once after `keys.refresh()` under every policy.
 */
export type RetryPolicy = 'read' | 'unsent' | 'never';

/** What a 2xx body must hold: `data` object, `data` list, a bare object, or nothing of interest. */
export type Expect = 'object' | 'list' | 'record' | 'nothing';

export interface ServiceCall {
  operation: string;
  method: 'GET' | 'POST';
  /** Path under the base URL, starting with `/v2`. */
  path: string;
  query?: Record<string, string>;
  /** Serialised once; exactly those bytes are signed and sent. */
  body: object;
  retry: RetryPolicy;
  expect: Expect;
}

/** A request without its body: the endpoint it calls, and how the sender treats it. */
export type Endpoint = Omit<ServiceCall, 'body'>;

export interface RequestSenderOptions {
  /** May carry a path prefix and a trailing slash, e.g. `https://host/api/`. */
  baseUrl: string;
  keys: KeySource;
  connectTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** Longest silence between body chunks. */
  bodyTimeoutMs?: number;
  maxRetries?: number;
  connections?: number;
  /** The invocation's deadline in epoch ms, undefined outside any invocation; without it no deadline applies. */
  deadline?: () => number | undefined;
}

const BACKOFF_BASE_MS = 50;

/**
 * No attempt starts with less of the invocation left than this: it would mostly be cut off, and a cut create has
 * an unknown outcome. A healthy service answers well within it.
 */
export const MIN_ATTEMPT_MS = 1_000;

/**
 * Inside an invocation every attempt ends by its deadline (each timeout is cut to the time left), and none starts
 * without MIN_ATTEMPT_MS left. Outside any invocation the configured timeouts and retries apply as they are.
 */
export class RequestSender {
  private readonly transport: HttpTransport;
  private readonly pathPrefix: string;
  private readonly keys: KeySource;
  private readonly maxRetries: number;
  private readonly deadline: () => number | undefined;

  constructor(options: RequestSenderOptions) {
    const base = new URL(options.baseUrl);
    if (base.search || base.hash) throw new TypeError('baseUrl must not carry a query or fragment');
    this.pathPrefix = base.pathname.replace(/\/+$/, '');
    this.keys = options.keys;
    this.maxRetries = options.maxRetries ?? 2;
    this.deadline = options.deadline ?? (() => undefined);
    this.transport = new HttpTransport(base, {
      connections: options.connections ?? 16,
      connectTimeoutMs: options.connectTimeoutMs ?? 3000,
      headersTimeoutMs: options.headersTimeoutMs ?? 10000,
      bodyTimeoutMs: options.bodyTimeoutMs ?? 10000,
    });
  }

  async send<T>(request: ServiceCall): Promise<T> {
    if (!this.timeForAnAttempt(0)) throw notSent(request.operation);
    const payload = Buffer.from(JSON.stringify(request.body), 'utf8');
    let signed = signedWith(await this.keys.get(), payload);
    // Reading the keys may have fetched them (a cold start, an expired cache) and taken the time an attempt needs.
    if (!this.timeForAnAttempt(0)) throw notSent(request.operation);
    let refreshed = false;
    let retries = 0;
    for (;;) {
      try {
        return (await this.attempt(request, signed)) as T;
      } catch (error) {
        let wait = 0;
        let refreshedKeys: ProcessingKeys | undefined;
        if (!refreshed && isStaleKeyRejection(error)) {
          refreshed = true;
          refreshedKeys = await this.keys.refresh();
        } else if (retries < this.maxRetries && mayRetry(request.retry, error)) {
          wait = backoffMs(retries++);
        } else {
          throw error;
        }
        // Without time for the re-send to be answered, the caller gets the real failure now.
        if (!this.timeForAnAttempt(wait)) throw error;
        if (wait > 0) await sleep(wait);
        // Each attempt reads the keys it signs with, so that a rotation between attempts is taken up.
        signed = signedWith(refreshedKeys ?? (await this.keys.get()), payload);
        if (!this.timeForAnAttempt(0)) throw error;
      }
    }
  }

  close(): Promise<void> {
    return this.transport.close();
  }

  private async attempt(request: Endpoint, { payload, keys, headers: signature }: Signed): Promise<unknown> {
    const query = request.query ? `?${new URLSearchParams(request.query).toString()}` : '';
    const outcome = await this.transport.exchange({
      method: request.method,
      path: this.pathPrefix + request.path + query,
      body: payload,
      deadline: this.deadline(),
      headers: { 'Content-Type': 'application/json', Accept: 'application/json', ...signature },
    });
    // Neither the secret nor what the headers carry (the API key, the signature) may be echoed in an error.
    return interpret(request, outcome, [keys.secretKey, ...Object.values(signature)]);
  }

  /** True when, after waiting `waitMs`, at least MIN_ATTEMPT_MS of the invocation would be left (or none is set). */
  private timeForAnAttempt(waitMs: number): boolean {
    const deadline = this.deadline();
    return deadline === undefined || deadline - Date.now() - waitMs >= MIN_ATTEMPT_MS;
  }
}

/** A request's body and its signature headers under `keys`. */
interface Signed {
  payload: Buffer;
  keys: ProcessingKeys;
  headers: Record<string, string>;
}

function signedWith(keys: ProcessingKeys, payload: Buffer): Signed {
  return { payload, keys, headers: signatureHeaders(keys, payload) };
}

function interpret(request: Endpoint, outcome: ExchangeResult, secrets: string[]): unknown {
  const { operation } = request;
  if (!outcome.ok) {
    const code = (outcome.error as { code?: unknown }).code;
    const Failure =
      outcome.error instanceof TimeoutError ? ProcessingTimeoutError : ProcessingConnectionError;
    throw new Failure({
      operation,
      code: typeof code === 'string' ? code : 'connection_error',
      message: `${operation}: ${redact(outcome.error.message, secrets)}`,
      outcomeUnknown: outcome.sent,
      cause: outcome.error,
    });
  }
  if (outcome.status < 200 || outcome.status > 299) {
    throw errorFromResponse(operation, outcome.status, redact(outcome.body, secrets));
  }
  if (request.expect === 'nothing') return undefined;
  let body: unknown;
  try {
    body = parseJson(outcome.body);
  } catch (error) {
    throw invalidAnswer(operation, outcome, secrets, `unreadable answer: ${(error as Error).message}`);
  }
  const value = request.expect === 'record' ? body : isObject(body) ? body.data : undefined;
  const fits = request.expect === 'list' ? Array.isArray(value) : isObject(value);
  if (!fits) {
    const expected = request.expect === 'record' ? 'object' : request.expect;
    throw invalidAnswer(operation, outcome, secrets, `answer lacks the expected ${expected}`);
  }
  return value;
}

function invalidAnswer(
  operation: string,
  outcome: { status: number; body: string },
  secrets: string[],
  detail: string,
): ProcessingUpstreamError {
  return new ProcessingUpstreamError({
    operation,
    status: outcome.status,
    code: 'invalid_response',
    message: `${operation}: ${detail} (HTTP ${outcome.status})`,
    rawBody: redact(outcome.body, secrets),
  });
}

/** Nothing was sent: the invocation had too little time left for an attempt. */
function notSent(operation: string): ProcessingTimeoutError {
  return new ProcessingTimeoutError({
    operation,
    code: 'deadline_exceeded',
    message: `${operation}: not sent, too little of the invocation's time is left`,
    outcomeUnknown: false,
  });
}

function mayRetry(policy: RetryPolicy, error: unknown): boolean {
  if (policy === 'never') return false;
  if (error instanceof ProcessingConnectionError) return policy === 'read' || !error.outcomeUnknown;
  return policy === 'read' && error instanceof ProcessingUpstreamError && (error.status ?? 0) >= 500;
}

/** Exponential with equal jitter: 25-50 ms, 50-100 ms, ... */
function backoffMs(retry: number): number {
  const ceiling = BACKOFF_BASE_MS * 2 ** retry;
  return ceiling / 2 + (Math.random() * ceiling) / 2;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function redact(text: string, secrets: string[]): string {
  return secrets.reduce((out, secret) => (secret ? out.split(secret).join('[redacted]') : out), text);
}
