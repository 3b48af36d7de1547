import { MarketService } from '../domain/market';
import { pairInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { pairsRoute } from '../lib/routes';
import { numberEnv } from '../runtime/env';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';

const market = new MarketService(processing, numberEnv('RATES_CACHE_SECONDS', 30) * 1000, Date.now);

/** GET /pairs?from=&to=: exchange pairs with their minimums, cached briefly. */
export const handler = apiRoute(
  { route: pairsRoute, tokens: bearerTokens, input: pairInput },
  async (query) => ({
    status: 200,
    body: { data: await market.pairs(query) },
  }),
);
