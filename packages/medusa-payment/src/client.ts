// The plugin's API, typed from openapi.json, with retries for lost answers and a busy plugin.
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api';
import { MerchantPaymentsError } from './errors';
import type { ResolvedOptions } from './options';

export type InvoiceView = components['schemas']['InvoiceView'];
export type CheckoutView = components['schemas']['CheckoutView'];
export type RefundView = components['schemas']['RefundView'];
export type CheckoutBody = components['schemas']['CheckoutBody'];
export type WebhookEvent = components['schemas']['WebhookEvent'];
type ErrorBody = components['schemas']['Error'];

export interface PluginClients {
  storefront: Client<paths>;
  admin: Client<paths>;
  /** Sends one request until it is answered, `max_attempts` at most (see `send`). */
  send: <T>(request: () => Promise<Sent<T>>) => Promise<Answered<T>>;
}

/** What openapi-fetch answers: the body on success, the error body else, and the response. */
export interface Sent<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export interface Answered<T> {
  status: number;
  data?: T;
  /** The plugin's error, `{code, message, …}`, when it refused. */
  error?: ErrorBody['error'];
}

// The answers the README says to retry after a wait: busy, unavailable, no answer in time, and a concurrent request.
const RETRIED_STATUSES = new Set([429, 502, 503, 504]);
const FIRST_WAIT_MS = 200;
const MAX_WAIT_MS = 5000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfterMs(response: Response | undefined): number | undefined {
  const seconds = Number(response?.headers.get('retry-after'));
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds * 1000, MAX_WAIT_MS) : undefined;
}

function pluginError(error: unknown): ErrorBody['error'] | undefined {
  const body = error as Partial<ErrorBody> | undefined;
  return typeof body?.error?.code === 'string' ? body.error : undefined;
}

export function pluginClients(options: ResolvedOptions): PluginClients {
  // A request that takes too long is a lost answer: every request the provider sends is safe to send again.
  const timedFetch = (request: Request) =>
    fetch(request, { signal: AbortSignal.timeout(options.request_timeout_ms) });
  const client = (token: string) =>
    createClient<paths>({
      baseUrl: options.api_url,
      headers: { authorization: `Bearer ${token}` },
      fetch: timedFetch,
    });

  const send = async <T>(request: () => Promise<Sent<T>>): Promise<Answered<T>> => {
    for (let attempt = 1; ; attempt += 1) {
      let sent: Sent<T> | undefined;
      let lost: unknown;
      try {
        sent = await request();
      } catch (error) {
        // No answer (a dropped connection, a timeout): the request may have landed, so it is sent again as it was.
        lost = error;
      }
      const error = sent ? pluginError(sent.error) : undefined;
      const retried =
        sent === undefined ||
        RETRIED_STATUSES.has(sent.response.status) ||
        (sent.response.status === 409 && error?.code === 'in_progress');
      if (!retried) return { status: sent!.response.status, data: sent!.data, error };
      if (attempt >= options.max_attempts) {
        const why = sent
          ? `answered ${sent.response.status} ${error?.code ?? ''}`.trim()
          : `did not answer (${String(lost)})`;
        throw new MerchantPaymentsError(
          'unexpected_state',
          error?.code ?? 'plugin_unreachable',
          `The payments plugin ${why} after ${attempt} attempts; retrying is safe`,
        );
      }
      await sleep(retryAfterMs(sent?.response) ?? Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_WAIT_MS));
    }
  };

  return { storefront: client(options.storefront_token), admin: client(options.admin_token), send };
}

/** An error for an answer the provider did not expect: the plugin's code and message, never a token. */
export function refused(what: string, answer: Answered<unknown>): MerchantPaymentsError {
  const code = answer.error?.code ?? `http_${answer.status}`;
  const fields = answer.error?.fields
    ? ` (${Object.entries(answer.error.fields)
        .map(([field, why]) => `${field}: ${why}`)
        .join('; ')})`
    : '';
  const type =
    answer.status === 400 || answer.status === 422
      ? 'invalid_data'
      : answer.status === 409
        ? 'not_allowed'
        : 'unexpected_state';
  return new MerchantPaymentsError(
    type,
    code,
    `${what}: the payments plugin answered ${answer.status} ${code}: ${answer.error?.message ?? 'no message'}${fields}`,
  );
}
