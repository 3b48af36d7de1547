import { listBody } from '../http/cursor';
import { deliveryListInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { deliveryView } from '../http/webhook-views';
import { listWebhookDeliveriesRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { deliveryListOf } from '../runtime/webhooks';

/** GET /webhooks/deliveries: the caller's store's, newest first, a page at a time. */
export const handler = apiRoute(
  { route: listWebhookDeliveriesRoute, tokens: bearerTokens, limits: storeLimits, input: deliveryListInput },
  async (query, caller) => {
    const { records, more } = await deliveryListOf(caller.storeId).listNewest(query);
    const last = records.at(-1);
    const next = more && last ? { at: last.createdAt, foreignId: last.id } : null;
    return { status: 200, body: listBody(records, deliveryView, next) };
  },
);
