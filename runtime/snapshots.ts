import type { SnapshotStore } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { requireOwnAccount } from './store-account';
import { snapshotStore } from './stores';

/**
 * The snapshots of the store's account: the deployment's for the default store, a store's own; else 409. Apart from
 * runtime/balances.ts, so that the history, which never calls the service, holds no processing keys.
 */
export async function snapshotsFor(storeId: StoreId): Promise<SnapshotStore> {
  if (storeId === DEFAULT_STORE_ID) return snapshotStore;
  await requireOwnAccount(storeId, 'its balances');
  return snapshotStore.forStore(storeId);
}
