// The plugin's webhooks, verified as Standard Webhooks on the raw body before anything in them is believed.
import { MerchantPaymentsError } from './errors';
import { PluginClientError, verifyWebhook, type WebhookEvent } from './plugin-client';

/**
 * How old a webhook may be when Medusa gets round to checking it: Medusa answers at once and checks it later, after
 * its delay, its retries or a backlog, and the plugin never sends again an event that was answered. A replay is
 * harmless: the action follows the invoice's view, and Medusa's authorization is idempotent.
 */
export const WEBHOOK_TOLERANCE_SECONDS = 3_600;

/** The event, once its signature verifies against the raw body; throws `invalid_signature` otherwise. */
export function verifiedEvent(
  secret: string,
  rawData: unknown,
  headers: Record<string, unknown>,
): WebhookEvent {
  if (!Buffer.isBuffer(rawData) && typeof rawData !== 'string') {
    throw new MerchantPaymentsError(
      'invalid_data',
      'invalid_signature',
      "The webhook's raw body is missing: Medusa must keep it (its /hooks/payment route does)",
    );
  }
  try {
    return verifyWebhook(secret, rawData, headers, WEBHOOK_TOLERANCE_SECONDS);
  } catch (error) {
    if (!(error instanceof PluginClientError)) throw error;
    throw new MerchantPaymentsError(
      'invalid_data',
      'invalid_signature',
      "The webhook's signature does not verify with webhook_secret (or it is over an hour old): ignored",
    );
  }
}
