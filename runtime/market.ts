import { MarketService } from '../domain/market';
import { numberEnv } from './env';
import { processing } from './processing';

/** The service's rates and pairs, cached for RATES_CACHE_SECONDS: GET /rates and GET /pairs answer from it. */
export const market = new MarketService(processing, numberEnv('RATES_CACHE_SECONDS', 30) * 1000, Date.now);
