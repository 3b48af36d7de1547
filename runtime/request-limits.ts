import { randomInt } from 'node:crypto';
import type { RequestLeases } from '../domain/ports';
import { DEFAULT_STORE_REQUESTS_PER_SECOND, StoreRequestLimits } from '../domain/request-limits';
import { DEFAULT_STORE_ID } from '../domain/stores';
import { currentContext } from '../observability/context';
import { describeError, log } from '../observability/log';
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

/** A lease not taken by then is given up: a count out of reach never refuses or stalls a store's requests. */
const LEASE_WAIT_MS = 1_000;

/** The leases, failing open: a lease that fails or is late admits its slice, and says so in the log. */
function failingOpen(leases: RequestLeases): RequestLeases {
  return {
    take: async (storeId, second, count, slice, limit) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), LEASE_WAIT_MS);
      });
      // A lease that fails after its request has answered is logged with that request's fields, not the next one's.
      const asked = currentContext()?.fields;
      const taken = leases.take(storeId, second, count, slice, limit).catch((error: unknown) => {
        log.warn('request limit not counted', { ...asked, storeId, ...describeError(error) });
        return true;
      });
      try {
        const outcome = await Promise.race([taken, late]);
        if (outcome !== 'late') return outcome;
        log.warn('request limit not counted in time', { storeId });
        return true;
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Each store's requests a second, counted in the table; its own limit is read from its cached item. */
export const storeLimits = /* @__PURE__ */ new StoreRequestLimits({
  leases: failingOpen(new DynamoRequestLeases(table)),
  limitOf: async (storeId) =>
    storeId === DEFAULT_STORE_ID
      ? deploymentLimit
      : ((await storeRegistry.get(storeId))?.requestsPerSecond ?? deploymentLimit),
  now: Date.now,
  seed: randomInt(2 ** 30),
});
