import { MarketService, type MarketAccount } from '../domain/market';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { numberEnv } from './env';
import { processingFor } from './processing';
import { accountOf } from './store-account';

/** The service's rates and pairs, cached for RATES_CACHE_SECONDS: GET /rates and GET /pairs answer from it. */
export const market = new MarketService(numberEnv('RATES_CACHE_SECONDS', 30) * 1000, Date.now);

/** The store's account now; every store that shares the deployment's account shares its cached answers. */
export async function marketAccountOf(storeId: StoreId): Promise<MarketAccount> {
  const api = processingFor(storeId);
  if (storeId === DEFAULT_STORE_ID) return { key: 'shared', api };
  const { processing } = await accountOf(storeId);
  return { key: processing.account === 'own' ? `own:${storeId}:${processing.baseUrl}` : 'shared', api };
}
