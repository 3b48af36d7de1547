import { resendFailed } from '../domain/webhook-deliveries';
import { resendFailedInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { resendFailedWebhooksRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { deliveryStore } from '../runtime/webhooks';

/** A call sets this many back to pending: each is a read and a write, well within the route's time. */
const RESEND_BATCH = 100;

/** POST /webhooks/deliveries/resend-failed: the caller's store's, up to RESEND_BATCH a call; `more` says to call again. */
export const handler = apiRoute(
  { route: resendFailedWebhooksRoute, tokens: bearerTokens, limits: storeLimits, input: resendFailedInput },
  async (_input, caller) => ({
    status: 200,
    body: await resendFailed(deliveryStore, caller.storeId, RESEND_BATCH, Date.now()),
  }),
);
