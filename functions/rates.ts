import { pairInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { ratesRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { market, marketAccountOf } from '../runtime/market';

/** GET /rates?from=&to=: the service's estimates, cached briefly. */
export const handler = apiRoute(
  { route: ratesRoute, tokens: bearerTokens, limits: storeLimits, input: pairInput },
  async (query, { storeId }) => ({
    status: 200,
    body: { data: await market.rates(await marketAccountOf(storeId), query) },
  }),
);
