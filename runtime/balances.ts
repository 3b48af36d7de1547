import { BalanceService } from '../domain/balances';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { processing, processingFor } from './processing';
import { snapshotsFor } from './snapshots';
import { snapshotStore } from './stores';

const deploymentBalances = new BalanceService(snapshotStore, processing, Date.now);
const byStore = new Map<StoreId, BalanceService>();

/** The balances of the store's account: the deployment's for the default store, a store's own; else 409. */
export async function balancesFor(storeId: StoreId): Promise<BalanceService> {
  if (storeId === DEFAULT_STORE_ID) return deploymentBalances;
  const snapshots = await snapshotsFor(storeId);
  let service = byStore.get(storeId);
  if (!service) {
    service = new BalanceService(snapshots, processingFor(storeId), Date.now);
    byStore.set(storeId, service);
  }
  return service;
}
