// The plugin's API for TypeScript consumers: typed from openapi.json, with retries for lost answers and a busy plugin,
// and its webhooks verified as Standard Webhooks. The demo store imports it here; packages/medusa-payment gets a copy
// from its `npm run client`, because a published package imports nothing from outside its folder.
import { timingSafeEqual } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import { Webhook } from 'standardwebhooks';
import type { components, paths } from './api';

export type InvoiceView = components['schemas']['InvoiceView'];
export type CheckoutView = components['schemas']['CheckoutView'];
export type RefundView = components['schemas']['RefundView'];
export type CheckoutBody = components['schemas']['CheckoutBody'];
export type WebhookEvent = components['schemas']['WebhookEvent'];
/** The plugin's error, `{code, message, …}`, as it answers a refusal. */
export type PluginRefusal = components['schemas']['Error']['error'];

export interface PluginClientOptions {
  /** The plugin's API, as this server reaches it. */
  apiUrl: string;
  /** A store's token; it goes in the authorization header alone, never in a URL or an error. */
  token: string;
  /** How long one attempt waits for its answer before it counts as lost. */
  timeoutMs: number;
  /** How many times `send` sends one request at most. */
  maxAttempts: number;
}

/** The openapi-fetch client, holding the token, and `send`, which sends a request until it is answered. */
export type PluginClient = Client<paths> & {
  send: <T>(request: () => Promise<Sent<T>>) => Promise<Answered<T>>;
};

/** What openapi-fetch answers: the body on success, the error body else, and the response. */
export interface Sent<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

export interface Answered<T> {
  status: number;
  data?: T;
  /** The plugin's error when it refused. */
  error?: PluginRefusal;
}

/** The client's own failures: no answer worth keeping after every attempt, or a webhook that does not verify. */
export class PluginClientError extends Error {
  override readonly name = 'PluginClientError';

  constructor(
    readonly reason: 'unreachable' | 'invalid_signature',
    /** The plugin's error code when it last answered a retried refusal, else `plugin_unreachable` or `invalid_signature`. */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
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

function pluginRefusal(error: unknown): PluginRefusal | undefined {
  const body = error as { error?: Partial<PluginRefusal> } | undefined;
  return typeof body?.error?.code === 'string' ? (body.error as PluginRefusal) : undefined;
}

export function createPluginClient(options: PluginClientOptions): PluginClient {
  // A request that takes too long is a lost answer: send only requests that are safe to send again.
  const timedFetch = (request: Request) => fetch(request, { signal: AbortSignal.timeout(options.timeoutMs) });
  const client = createClient<paths>({
    baseUrl: options.apiUrl,
    headers: { authorization: `Bearer ${options.token}` },
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
      const error = sent ? pluginRefusal(sent.error) : undefined;
      const retried =
        sent === undefined ||
        RETRIED_STATUSES.has(sent.response.status) ||
        (sent.response.status === 409 && error?.code === 'in_progress');
      if (!retried) return { status: sent!.response.status, data: sent!.data, error };
      if (attempt >= options.maxAttempts) {
        const why = sent
          ? `answered ${sent.response.status} ${error?.code ?? ''}`.trim()
          : `did not answer (${String(lost)})`;
        throw new PluginClientError(
          'unreachable',
          error?.code ?? 'plugin_unreachable',
          `The payments plugin ${why} after ${attempt} attempts; retrying is safe`,
        );
      }
      await sleep(retryAfterMs(sent?.response) ?? Math.min(FIRST_WAIT_MS * 2 ** (attempt - 1), MAX_WAIT_MS));
    }
  };

  return Object.assign(client, { send });
}

/** The Standard Webhooks libraries' own tolerance for a webhook's age. */
export const STANDARD_TOLERANCE_SECONDS = 300;

const SIGNATURE_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** Node's request headers (any case, a value or a list) as the three the signature needs. */
function signatureHeaders(headers: Record<string, unknown>): Record<string, string> {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return Object.fromEntries(
    SIGNATURE_HEADERS.map((name) => {
      const value = lower.get(name);
      return [name, Array.isArray(value) ? String(value[0] ?? '') : typeof value === 'string' ? value : ''];
    }),
  );
}

/**
 * The event, once its signature verifies against the raw body and it is at most `toleranceSeconds` old; throws
 * PluginClientError `invalid_signature` otherwise.
 */
export function verifyWebhook(
  secret: string,
  rawBody: string | Buffer,
  headers: Record<string, unknown>,
  toleranceSeconds: number = STANDARD_TOLERANCE_SECONDS,
): WebhookEvent {
  // Parsed-and-reserialised JSON would not match the signature: only the bytes as received verify.
  const raw = Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody;
  const {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures,
  } = signatureHeaders(headers);
  const sentAt = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  const age = Date.now() / 1000 - sentAt;
  if (!id || !(Math.abs(age) <= toleranceSeconds) || !signedBy(secret, id, sentAt, raw, signatures)) {
    throw new PluginClientError(
      'invalid_signature',
      'invalid_signature',
      `The webhook's signature does not verify, or it is over ${toleranceSeconds} s old`,
    );
  }
  return JSON.parse(raw) as WebhookEvent;
}

/** Whether one of the header's `v1,<base64>` signatures is the one the secret makes for this id, time and body. */
function signedBy(secret: string, id: string, sentAt: number, raw: string, signatures: string): boolean {
  const expected = Buffer.from(new Webhook(secret).sign(id, new Date(sentAt * 1000), raw));
  return signatures.split(' ').some((given) => {
    const candidate = Buffer.from(given);
    return candidate.length === expected.length && timingSafeEqual(candidate, expected);
  });
}
