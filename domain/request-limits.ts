// Per-store request limits (issue 45): each store may make so many requests a second, counted in the table per
// store and second, and leased to each warm function in slices sized to what it serves, so that the count costs few
// writes however busy. A store spread over many functions can be refused somewhat before its limit, as each one's
// last lease of a second goes partly unused (docs/operations.md, "Per-store limits").
import { DomainError } from './errors';
import type { RequestLeases } from './ports';
import type { StoreId } from './stores';

/** A store's requests a second when neither the stage nor the store sets another. */
export const DEFAULT_STORE_REQUESTS_PER_SECOND = 50;
export const MAX_STORE_REQUESTS_PER_SECOND = 100_000;

/** A function busy with a store takes its second in at most this many of the largest slices. */
export const LEASES_PER_SECOND = 20;

/** A store's second is counted on one item per this many requests of its limit, so that no count is a hot key. */
export const REQUESTS_PER_COUNT = 1_000;

/** The items a store's second is counted on, and each one's share of the limit. */
export function countsOf(limit: number): { counts: number; share: number } {
  const counts = Math.max(1, Math.ceil(limit / REQUESTS_PER_COUNT));
  return { counts, share: Math.ceil(limit / counts) };
}

/** The most requests one lease admits: a twentieth of the limit, at least one. */
export function sliceOf(limit: number): number {
  return Math.max(1, Math.ceil(limit / LEASES_PER_SECOND));
}

/**
 * A lease's size: one more than the function served of the store in its last second, or twice the last lease within
 * a second, or the requests waiting on it if more, at most `sliceOf(limit)`; sized to use, leases leave little unused.
 */
export function nextLeaseSize(
  limit: number,
  lastSecondServed: number,
  leasedBefore?: number,
  waiting = 0,
): number {
  const wanted = leasedBefore === undefined ? lastSecondServed + 1 : leasedBefore * 2;
  return Math.min(sliceOf(limit), Math.max(1, wanted, waiting));
}

/** A store over its requests a second: refused before its request does anything. */
export class RateLimitedError extends DomainError<'rate_limited'> {
  override name = 'RateLimitedError';
  readonly retryAfterSeconds = 1;

  constructor(
    readonly storeId: StoreId,
    readonly limit: number,
  ) {
    super(
      'rate_limited',
      `The store is over its limit of ${limit} requests a second; retry after Retry-After`,
    );
  }
}

export interface StoreRequestLimitsDeps {
  leases: RequestLeases;
  /** The store's own limit, else the stage's. */
  limitOf: (storeId: StoreId) => Promise<number>;
  now: () => number;
  /** Where among a store's counts this function starts each second, so that functions spread over them. */
  seed: number;
}

/** What a warm function holds of a store's second, and what it served in the one before, which sizes its leases. */
interface HeldSlice {
  second: number;
  left: number;
  served: number;
  lastSecondServed: number;
  waiting: number;
  /** The store's counts this second that refused this function: it leases from the next. */
  full: number;
  leased?: number;
  refused?: RateLimitedError;
  leasing?: Promise<void>;
}

/** Beyond this many stores, what a function holds is dropped: a lease is one write to take again. */
const MAX_HELD_STORES = 1_000;

/**
 * Admits a store's request from the slice this function holds for the current second; with none left, it leases
 * another slice with one conditional write (`nextLeaseSize`) on one of the store's counts (`countsOf`), and on the
 * next when that one is full. Once every count refused, the store's requests are refused here till the next second,
 * with no write. A store is refused only past its limit, less what other functions leased and have not used.
 */
export class StoreRequestLimits {
  private readonly held = new Map<StoreId, HeldSlice>();

  constructor(private readonly deps: StoreRequestLimitsDeps) {}

  async admit(storeId: StoreId): Promise<void> {
    for (;;) {
      const slice = this.current(storeId, Math.floor(this.deps.now() / 1000));
      if (slice.left === 0 && !slice.refused) await this.waitForLease(storeId, slice);
      // A lease may end in the next second: it still admits or refuses the requests that waited on it, or a slow
      // table would have them lease again every second.
      if (slice.left > 0) {
        slice.left -= 1;
        slice.served += 1;
        return;
      }
      if (slice.refused) throw slice.refused;
    }
  }

  /** One lease at a time for a slice: the requests that come while it is out wait for it, and size it. */
  private async waitForLease(storeId: StoreId, slice: HeldSlice): Promise<void> {
    slice.leasing ??= this.lease(storeId, slice).finally(() => {
      slice.leasing = undefined;
    });
    slice.waiting += 1;
    await slice.leasing.finally(() => {
      slice.waiting -= 1;
    });
  }

  private async lease(storeId: StoreId, slice: HeldSlice): Promise<void> {
    const limit = await this.deps.limitOf(storeId);
    const { counts, share } = countsOf(limit);
    for (; slice.full < counts; slice.full += 1) {
      const count = (this.deps.seed + slice.second + slice.full) % counts;
      const size = nextLeaseSize(share, slice.lastSecondServed, slice.leased, slice.waiting);
      slice.leased = size;
      if (await this.deps.leases.take(storeId, slice.second, count, size, share)) {
        slice.left += size;
        return;
      }
    }
    slice.refused = new RateLimitedError(storeId, limit);
  }

  private current(storeId: StoreId, second: number): HeldSlice {
    const held = this.held.get(storeId);
    if (held?.second === second) return held;
    if (this.held.size >= MAX_HELD_STORES) this.held.clear();
    const lastSecondServed = held?.second === second - 1 ? held.served : 0;
    const fresh: HeldSlice = { second, left: 0, served: 0, lastSecondServed, waiting: 0, full: 0 };
    this.held.set(storeId, fresh);
    return fresh;
  }
}
