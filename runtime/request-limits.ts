import { DEFAULT_STORE_REQUESTS_PER_SECOND, StoreRequestLimits } from '../domain/request-limits';
import { DEFAULT_STORE_ID } from '../domain/stores';
import { DynamoRequestLeases } from '../store/request-leases';
import { storeRegistry } from './store-registry';
import { table } from './table';

/** The stage's limit (lib/settings.ts, `storeRequestsPerSecond`), which the stack passes to every function. */
function stageLimit(): number {
  const text = process.env.STORE_REQUESTS_PER_SECOND;
  if (text === undefined || text === '') return DEFAULT_STORE_REQUESTS_PER_SECOND;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new Error('Environment variable STORE_REQUESTS_PER_SECOND must be a whole number above 0');
  }
  return limit;
}

const deploymentLimit = /* @__PURE__ */ stageLimit();

/** Each store's requests a second, counted in the table; its own limit is read from its cached item. */
export const storeLimits = /* @__PURE__ */ new StoreRequestLimits({
  leases: new DynamoRequestLeases(table),
  limitOf: async (storeId) =>
    storeId === DEFAULT_STORE_ID
      ? deploymentLimit
      : ((await storeRegistry.get(storeId))?.requestsPerSecond ?? deploymentLimit),
  now: Date.now,
});
