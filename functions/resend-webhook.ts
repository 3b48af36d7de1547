import { resend } from '../domain/webhook-deliveries';
import { eventIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { deliveryView } from '../http/webhook-views';
import { resendWebhookRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { deliveryStore } from '../runtime/webhooks';

/**
 * POST /webhooks/deliveries/{event_id}/resend: the caller's store's delivery pending again now (another store's is
 * not found); the dispatcher sends it on its next run.
 */
export const handler = apiRoute(
  { route: resendWebhookRoute, tokens: bearerTokens, limits: storeLimits, input: eventIdInput },
  async (eventId, caller) => ({
    status: 200,
    body: deliveryView(await resend(deliveryStore, caller.storeId, eventId, Date.now())),
  }),
);
