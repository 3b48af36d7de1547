import middy from '@middy/core';
import { describeError, log } from '../observability/log';
import { balancesFor } from '../runtime/balances';
import { invocation } from '../runtime/invocation';
import { storeRegistry } from '../runtime/store-registry';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';

/** Stores read from the registry a page at a time. */
const PAGE = 100;

/** Every store with its own processing account: their balances are theirs, apart from the deployment's. */
async function ownAccountStores(): Promise<StoreId[]> {
  const ids: StoreId[] = [];
  let after: { createdAt: number; id: StoreId } | undefined;
  for (;;) {
    const { records, more } = await storeRegistry.list({ limit: PAGE, after });
    ids.push(...records.filter((record) => record.account === 'own').map((record) => record.id));
    const last = records.at(-1);
    if (!more || !last) return ids;
    after = { createdAt: last.createdAt, id: last.id };
  }
}

/**
 * Scheduled: keeps a balance snapshot of each processing account: the deployment's (the default store's, which
 * the stores sharing it see through it) and each store's own. A failure throws once every account was tried, so
 * the scheduler retries and then dead-letters.
 */
export const handler = middy(async (): Promise<{ takenAt: number; currencies: number; accounts: number }> => {
  const snapshot = await (await balancesFor(DEFAULT_STORE_ID)).snapshot('scheduled');
  log.info('balance snapshot taken', { currencies: snapshot.balances.length });
  let failed = 0;
  const stores = await ownAccountStores();
  for (const storeId of stores) {
    try {
      await (await balancesFor(storeId)).snapshot('scheduled');
    } catch (error) {
      failed++;
      log.warn("a store's balance snapshot failed", { storeId, ...describeError(error) });
    }
  }
  if (failed > 0) throw new Error(`${failed} of ${stores.length} stores' balance snapshots failed`);
  return { takenAt: snapshot.takenAt, currencies: snapshot.balances.length, accounts: 1 + stores.length };
}).use(invocation());
