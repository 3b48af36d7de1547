import { MarketService } from '../domain/market';
import { pairInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { ratesRoute } from '../lib/routes';
import { numberEnv } from '../runtime/env';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';

const market = new MarketService(processing, numberEnv('RATES_CACHE_SECONDS', 30) * 1000, Date.now);

/** GET /rates?from=&to=: the service's estimates, cached briefly. */
export const handler = apiRoute(
  { route: ratesRoute, tokens: bearerTokens, input: pairInput },
  async (query) => ({
    status: 200,
    body: { data: await market.rates(query) },
  }),
);
