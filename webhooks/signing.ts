// Standard Webhooks signing (https://www.standardwebhooks.com): node:crypto alone, so the bundle stays small.
import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A secret as the specification writes it: `whsec_` and the base64 of 24 to 64 random bytes. */
export function isWebhookSecret(value: string): boolean {
  const key = value.startsWith(PREFIX) ? value.slice(PREFIX.length) : '';
  const bytes = BASE64.test(key) ? Buffer.from(key, 'base64').length : 0;
  return bytes >= 24 && bytes <= 64;
}

export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(32).toString('base64')}`;
}

/**
 * The three headers for one attempt. `webhook-signature` holds `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`
 * once per secret, space-separated: during a rotation a receiver with either secret verifies.
 */
export function signedHeaders(
  id: string,
  timestampSeconds: number,
  body: string,
  secrets: readonly string[],
): Record<string, string> {
  const signed = `${id}.${timestampSeconds}.${body}`;
  const signatures = secrets.map((secret) => {
    const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
    return `v1,${createHmac('sha256', key).update(signed).digest('base64')}`;
  });
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatures.join(' '),
  };
}
