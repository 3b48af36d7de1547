import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { storeRegistry } from './store-registry';

/** The name a customer's page shows for the store; the default store has none of its own. */
export async function storeNameOf(storeId: StoreId): Promise<string | null> {
  if (storeId === DEFAULT_STORE_ID) return null;
  return (await storeRegistry.get(storeId))?.name ?? null;
}
