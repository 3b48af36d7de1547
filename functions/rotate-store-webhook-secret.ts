import { apiRoute } from '../http/route';
import { rotateWebhookSecretInput } from '../http/store-inputs';
import { storeView } from '../http/store-views';
import { rotateStoreWebhookSecretRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/**
 * POST /stores/{store_id}/webhook-secret/rotate: a new secret, answered once; the previous one signs beside it for
 * `grace_seconds`.
 */
export const handler = apiRoute(
  { route: rotateStoreWebhookSecretRoute, tokens: bearerTokens, input: rotateWebhookSecretInput },
  async ({ storeId, graceSeconds, apiBase }) => {
    const { record, webhookSecret, previousExpireAt } = await storeAdmin.rotateWebhookSecret(
      storeId,
      graceSeconds,
    );
    return {
      status: 200,
      body: {
        store: storeView(record, apiBase),
        webhook_secret: webhookSecret,
        previous_secret_expires_at: new Date(previousExpireAt).toISOString(),
      },
    };
  },
);
