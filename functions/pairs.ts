import { pairInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { pairsRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { market, marketAccountOf } from '../runtime/market';

/** GET /pairs?from=&to=: exchange pairs with their minimums, cached briefly. */
export const handler = apiRoute(
  { route: pairsRoute, tokens: bearerTokens, limits: storeLimits, input: pairInput },
  async (query, { storeId }) => ({
    status: 200,
    body: { data: await market.pairs(await marketAccountOf(storeId), query) },
  }),
);
