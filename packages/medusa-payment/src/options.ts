// The provider's options, as medusa-config gives them, checked once when Medusa loads the provider.
import { MerchantPaymentsError } from './errors';

export interface MerchantPaymentsOptions {
  /** The plugin's HTTP API, such as https://payments.example.com (no trailing slash needed). */
  api_url: string;
  /** The store's storefront token: checkouts and reads. */
  storefront_token: string;
  /** The store's admin token: cancels and refunds. */
  admin_token: string;
  /** The store's webhook secret, `whsec_…`: verifies the plugin's webhooks. */
  webhook_secret: string;
  /** Where the payment page and the widget send the customer after paying. */
  url_success: string;
  /** Where they send the customer when the payment fails. */
  url_failed: string;
  /** Shown to the customer on the payment page (1 to 50 characters); "Order" when absent. */
  title?: string;
  /** How many times one request is sent when its answer is lost or the plugin is busy; 4 when absent. */
  max_attempts?: number;
  /** How long one request may take, in milliseconds; 35000 when absent. */
  request_timeout_ms?: number;
}

export type ResolvedOptions = Required<MerchantPaymentsOptions>;

const WEBHOOK_SECRET_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
// A bearer token travels in a header: printable ASCII without spaces.
const TOKEN = /^[\x21-\x7e]{8,512}$/;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

const refuse = (name: string, why: string): never => {
  throw new MerchantPaymentsError('invalid_data', 'invalid_option', `Option ${name}: ${why}`);
};

/** A URL; `api_url` carries the tokens, so it must be https unless the plugin runs on this machine. */
function url(options: Record<string, unknown>, name: string, carriesTokens: boolean): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') return refuse(name, 'is required');
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return refuse(name, 'is not a URL');
  }
  if (parsed.protocol === 'https:') return value;
  if (parsed.protocol === 'http:' && (!carriesTokens || LOCAL_HOSTS.has(parsed.hostname))) return value;
  return refuse(name, carriesTokens ? 'must be https (http only on localhost)' : 'must be https or http');
}

function token(options: Record<string, unknown>, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') return refuse(name, 'is required');
  // The message never repeats the value: it is a secret.
  if (!TOKEN.test(value)) return refuse(name, 'must be 8 to 512 printable characters without spaces');
  return value;
}

function webhookSecret(options: Record<string, unknown>): string {
  const value = options.webhook_secret;
  if (typeof value !== 'string' || value === '') return refuse('webhook_secret', 'is required');
  const key = value.startsWith(WEBHOOK_SECRET_PREFIX) ? value.slice(WEBHOOK_SECRET_PREFIX.length) : '';
  const bytes = BASE64.test(key) ? Buffer.from(key, 'base64').length : 0;
  if (bytes < 24 || bytes > 64) {
    return refuse('webhook_secret', 'must be whsec_ and the base64 of 24 to 64 bytes, as the plugin gave it');
  }
  return value;
}

function integer(options: Record<string, unknown>, name: string, min: number, max: number, fallback: number) {
  const value = options[name];
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    return refuse(name, `must be a whole number from ${min} to ${max}`);
  }
  return value;
}

/** The options checked, with their defaults; throws naming the first option missing or malformed. */
export function resolveOptions(raw: unknown): ResolvedOptions {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return refuse(
      '(all)',
      'the provider needs its options: api_url, storefront_token, admin_token, webhook_secret',
    );
  }
  const options = raw as Record<string, unknown>;
  const title = options.title ?? 'Order';
  if (typeof title !== 'string' || title.trim() === '' || title.length > 50) {
    refuse('title', 'must be 1 to 50 characters');
  }
  return {
    api_url: url(options, 'api_url', true).replace(/\/+$/, ''),
    storefront_token: token(options, 'storefront_token'),
    admin_token: token(options, 'admin_token'),
    webhook_secret: webhookSecret(options),
    url_success: url(options, 'url_success', false),
    url_failed: url(options, 'url_failed', false),
    title: title as string,
    max_attempts: integer(options, 'max_attempts', 1, 10, 4),
    request_timeout_ms: integer(options, 'request_timeout_ms', 1000, 120_000, 35_000),
  };
}
