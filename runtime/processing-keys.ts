import type { KeySource } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { parseProcessingKeys } from '../secrets/processing-keys';
import { cachedSecret } from './secret';
import { accountOf } from './store-account';

/** Only the functions that call the service or verify its callbacks load this module, and only they may read it. */
export const processingKeys: KeySource = cachedSecret('processingKeys', parseProcessingKeys);

/** The keys a store's account signs with: the deployment's when the store shares them, else the store's own. */
export function keysOf(storeId: StoreId): KeySource {
  if (storeId === DEFAULT_STORE_ID) return processingKeys;
  const pick = async (fresh: boolean) => {
    const { processing } = await accountOf(storeId);
    const keys = processing.account === 'own' ? processing.keys : processingKeys;
    return fresh ? keys.refresh() : keys.get();
  };
  return { get: () => pick(false), refresh: () => pick(true) };
}
