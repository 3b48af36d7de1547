import { apiRoute } from '../http/route';
import { currentTokenInput } from '../http/store-inputs';
import { currentTokenRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';

/** GET /tokens/current: what the token may do, and for which store; the console asks at sign-in. */
export const handler = apiRoute(
  { route: currentTokenRoute, tokens: bearerTokens, limits: storeLimits, input: currentTokenInput },
  async (_input, caller) => ({
    status: 200,
    body: { scope: caller.scope, store_id: caller.storeId },
  }),
);
