import middy from '@middy/core';
import { describeError, log } from '../observability/log';
import { balancesFor } from '../runtime/balances';
import { invocation } from '../runtime/invocation';
import { storeRegistry } from '../runtime/store-registry';
import type { BalanceSnapshot } from '../domain/model';
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
  const accounts: StoreId[] = [DEFAULT_STORE_ID, ...(await ownAccountStores())];
  let deployment: BalanceSnapshot | undefined;
  let firstFailure: unknown;
  let failed = 0;
  for (const storeId of accounts) {
    try {
      const snapshot = await (await balancesFor(storeId)).snapshot('scheduled');
      if (storeId === DEFAULT_STORE_ID) {
        deployment = snapshot;
        log.info('balance snapshot taken', { currencies: snapshot.balances.length });
      }
    } catch (error) {
      failed++;
      firstFailure ??= error;
      log.warn("an account's balance snapshot failed", { storeId, ...describeError(error) });
    }
  }
  if (failed > 0 || !deployment) {
    log.warn('balance snapshots failed', { failed, accounts: accounts.length });
    throw firstFailure;
  }
  return { takenAt: deployment.takenAt, currencies: deployment.balances.length, accounts: accounts.length };
}).use(invocation());
