// The plugin's webhooks, verified as Standard Webhooks on the raw body before anything in them is believed.
import { timingSafeEqual } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './client';
import { MerchantPaymentsError } from './errors';

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/**
 * How old a webhook may be when Medusa gets round to checking it: Medusa answers at once and checks it later, after
 * its delay, its retries or a backlog, and the plugin never sends again an event that was answered. A replay is
 * harmless: the action follows the invoice's view, and Medusa's authorization is idempotent.
 */
export const WEBHOOK_TOLERANCE_SECONDS = 3_600;

/** Node's request headers (any case, a value or a list) as the three the signature needs. */
function signatureHeaders(headers: Record<string, unknown>): Record<string, string> {
  const lower = new Map(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return Object.fromEntries(
    HEADERS.map((name) => {
      const value = lower.get(name);
      return [name, Array.isArray(value) ? String(value[0] ?? '') : typeof value === 'string' ? value : ''];
    }),
  );
}

/** The event, once its signature verifies against the raw body; throws `invalid_signature` otherwise. */
export function verifiedEvent(
  secret: string,
  rawData: unknown,
  headers: Record<string, unknown>,
): WebhookEvent {
  // Parsed-and-reserialised JSON would not match the signature: only the bytes as received verify.
  const raw = Buffer.isBuffer(rawData)
    ? rawData.toString('utf8')
    : typeof rawData === 'string'
      ? rawData
      : undefined;
  if (raw === undefined) {
    throw new MerchantPaymentsError(
      'invalid_data',
      'invalid_signature',
      "The webhook's raw body is missing: Medusa must keep it (its /hooks/payment route does)",
    );
  }
  const {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': signatures,
  } = signatureHeaders(headers);
  const sentAt = /^\d{1,12}$/.test(timestamp) ? Number(timestamp) : NaN;
  const age = Date.now() / 1000 - sentAt;
  if (
    !id ||
    !(Math.abs(age) <= WEBHOOK_TOLERANCE_SECONDS) ||
    !signedBy(secret, id, sentAt, raw, signatures)
  ) {
    throw new MerchantPaymentsError(
      'invalid_data',
      'invalid_signature',
      "The webhook's signature does not verify with webhook_secret (or it is over an hour old): ignored",
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
