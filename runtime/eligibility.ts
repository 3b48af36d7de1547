import { EligibilityService, PAY_CURRENCIES, type PairsAccount } from '../domain/eligibility';
import type { StoreId } from '../domain/stores';
import { DEFAULT_STORE_ID } from '../domain/stores';
import { numberEnv } from './env';
import { processingFor } from './processing';
import { accountOf } from './store-account';

/**
 * The pairs behind `GET /checkout/options` and the checkout's named minimum, kept per payment account for
 * ELIGIBILITY_CACHE_SECONDS in a warm container: minimums change seldom, and the amounts shown are estimates.
 */
export const eligibility = new EligibilityService(
  PAY_CURRENCIES,
  numberEnv('ELIGIBILITY_CACHE_SECONDS', 300) * 1000,
  Date.now,
);

/** The store's account now; every store that shares the deployment's account shares its cached pairs. */
export async function pairsAccountOf(storeId: StoreId): Promise<PairsAccount> {
  const api = processingFor(storeId);
  if (storeId === DEFAULT_STORE_ID) return { key: 'shared', api };
  const { processing } = await accountOf(storeId);
  return { key: processing.account === 'own' ? `own:${storeId}:${processing.baseUrl}` : 'shared', api };
}
