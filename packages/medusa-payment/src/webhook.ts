// The plugin's webhooks, verified as Standard Webhooks on the raw body before anything in them is believed.
import { Webhook } from 'standardwebhooks';
import type { WebhookEvent } from './client';
import { MerchantPaymentsError } from './errors';

const HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

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
  try {
    return new Webhook(secret).verify(raw, signatureHeaders(headers)) as WebhookEvent;
  } catch {
    throw new MerchantPaymentsError(
      'invalid_data',
      'invalid_signature',
      "The webhook's signature does not verify with webhook_secret (or it is over five minutes old): ignored",
    );
  }
}
