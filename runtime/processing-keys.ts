import type { KeySource } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { parseProcessingKeys } from '../secrets/processing-keys';
import { cachedSecret } from './secret';
import { accountOf } from './store-account';

let deploymentKeys: KeySource | undefined;
/** At first use, so that a function loading this module without reading it needs no secret named in its environment. */
const loaded = () => (deploymentKeys ??= cachedSecret('processingKeys', parseProcessingKeys));

/**
 * The deployment's keys: only the functions that call the service or verify its callbacks may read them. The
 * store-callbacks function loads this module with a store's services but verifies and applies with the store's own.
 */
export const processingKeys: KeySource = {
  get: () => loaded().get(),
  refresh: () => loaded().refresh(),
};

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
