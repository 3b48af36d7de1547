// The heat model: from the units a run measured on each partition key, the load each key carries at a rate of new
// orders, the highest rate no key throttles at, and the Lambda concurrency and API requests that rate needs.
import { countsOf, nextLeaseSize, REQUESTS_PER_COUNT } from '../domain/request-limits';
import type { KeyUnits } from './heat-meter';

/** DynamoDB's per-partition-key limits, indexes included, and Lambda's and API Gateway's account defaults. */
export const LIMITS = {
  writeUnitsPerKey: 1_000,
  readUnitsPerKey: 3_000,
  lambdaConcurrency: 1_000,
  apiRequestsPerSecond: 10_000,
} as const;

/** What one run measured: its orders, every key's units, and each function's invocations and time. */
export interface Measured {
  orders: number;
  keys: KeyUnits[];
  /**
   * Per function: invocations in the run and the billed ms of one. A scheduled job runs one at a time whatever the
   * rate (`oneAtATime`), so it needs one.
   */
  functions: Record<string, { invocations: number; billedMs: number; oneAtATime?: boolean }>;
  /** Requests through the API (routes, callbacks included). */
  apiRequests: number;
}

/**
 * How keys group. A key of one order (its record's item) carries that order's traffic whatever the rate; a sharded
 * key is one of `shards` partitions that share their family's load evenly, as a stable hash spreads many orders.
 */
export interface KeyRules {
  isOrderKey: (key: KeyUnits) => boolean;
  /** The family a shard belongs to and the shard count, or undefined for a key that is not sharded. */
  shardFamily: (key: KeyUnits) => { family: string; shards: number } | undefined;
  /**
   * Whether a key's reads are a scheduled job's list queries: they come once a run, a bounded page a shard, whatever
   * the rate, so they are left out of the per-order load.
   */
  readPerRun: (key: KeyUnits) => boolean;
  /**
   * Whether a key's load is computed apart (`leaseLoad`) instead of measured: the per-store limit's counts, whose
   * writes follow the functions serving a store, which one local process cannot show.
   */
  computedApart: (key: KeyUnits) => boolean;
}

/** A key's load per new order: its units over the run's orders; a shard's, its family's share. */
export interface KeyLoad {
  place: string;
  /** The key, or the family's name with `<n>` for its shard (each shard carries this load). */
  key: string;
  readPerOrder: number;
  writePerOrder: number;
  /** The order rate at which this key reaches a limit. */
  maxRate: number;
  /** Its write units a second at a rate, where they do not grow in step with it (a store's request-limit counts). */
  writesAt?: (rate: number) => number;
}

export interface HeatReport {
  /** Every key (or shard family) orders share, hottest first. */
  loads: KeyLoad[];
  /** Per place (table, each index): its hottest key shared by orders. */
  hottest: KeyLoad[];
  /** The highest order rate at which no shared key passes the limits, and the key that sets it. */
  maxRate: number;
  limitedBy: KeyLoad;
  /** The most units one order puts on a key of its own (its record): it does not grow with the rate. */
  orderKey: { readUnits: number; writeUnits: number };
}

export function keyMaxRate(readPerOrder: number, writePerOrder: number): number {
  const perOrder = Math.max(readPerOrder / LIMITS.readUnitsPerKey, writePerOrder / LIMITS.writeUnitsPerKey);
  return perOrder === 0 ? Number.POSITIVE_INFINITY : 1 / perOrder;
}

/** Each shared key's (or shard family's) load per order, with the loads `computed` apart, and the hottest per place. */
export function heatOf(measured: Measured, rules: KeyRules, computed: KeyLoad[] = []): HeatReport {
  const shared = new Map<
    string,
    { place: string; key: string; read: number; write: number; shards: number }
  >();
  const orderKey = { readUnits: 0, writeUnits: 0 };
  const perOrderKey = new Map<string, { read: number; write: number }>();
  for (const units of measured.keys) {
    if (rules.computedApart(units)) continue;
    if (rules.isOrderKey(units)) {
      const id = `${units.place}\u0000${units.key}`;
      const seen = perOrderKey.get(id) ?? { read: 0, write: 0 };
      seen.read += units.readUnits;
      seen.write += units.writeUnits;
      perOrderKey.set(id, seen);
      continue;
    }
    const sharded = rules.shardFamily(units);
    const key = sharded ? sharded.family : units.key;
    const id = `${units.place}\u0000${key}`;
    const group = shared.get(id) ?? {
      place: units.place,
      key,
      read: 0,
      write: 0,
      shards: sharded?.shards ?? 1,
    };
    if (!rules.readPerRun(units)) group.read += units.readUnits;
    group.write += units.writeUnits;
    shared.set(id, group);
  }
  for (const { read, write } of perOrderKey.values()) {
    orderKey.readUnits = Math.max(orderKey.readUnits, read);
    orderKey.writeUnits = Math.max(orderKey.writeUnits, write);
  }
  const loads: KeyLoad[] = [...shared.values()].map(({ place, key, read, write, shards }) => {
    const readPerOrder = read / measured.orders / shards;
    const writePerOrder = write / measured.orders / shards;
    return { place, key, readPerOrder, writePerOrder, maxRate: keyMaxRate(readPerOrder, writePerOrder) };
  });
  loads.push(...computed);
  if (loads.length === 0) throw new Error('The run put no load on a key that orders share');
  const byHeat = (a: KeyLoad, b: KeyLoad) => a.maxRate - b.maxRate;
  const places = [...new Set(loads.map((load) => load.place))].sort();
  const hottest = places.map((place) => loads.filter((load) => load.place === place).sort(byHeat)[0]);
  const limitedBy = [...loads].sort(byHeat)[0];
  return { loads: [...loads].sort(byHeat), hottest, maxRate: limitedBy.maxRate, limitedBy, orderKey };
}

/**
 * One of a store's request-limit counts (domain/request-limits.ts), at a rate of orders spread evenly over `stores`,
 * the store's limit set as docs/operations.md advises: its writes are the leases of the instances of the `limited`
 * functions that serve the store, spread over the store's counts. An instance busy `billedMs` a call sees the store's
 * requests as a Poisson stream of 1000 / (billedMs × stores) a second.
 */
export function leaseLoad(
  measured: Measured,
  limited: string[],
  stores: number,
  place: string,
  key: string,
): KeyLoad {
  let writePerOrder = 0;
  for (const name of limited) {
    const fn = measured.functions[name];
    if (!fn || fn.invocations === 0 || fn.oneAtATime) continue;
    const billedMs = Math.ceil(fn.billedMs);
    const instancesPerOrder = (fn.invocations / measured.orders) * (billedMs / 1000);
    writePerOrder += instancesPerOrder * leasesPerSecond(1000 / (billedMs * stores));
  }
  const storeLimitPerOrder = (SALE_HEADROOM * measured.apiRequests) / measured.orders / stores;
  const writesAt = (rate: number) => (writePerOrder * rate) / countsOf(storeLimitPerOrder * rate).counts;
  // The writes on one count peak just before the store's limit adds a count: there each count has REQUESTS_PER_COUNT.
  const peak = (writePerOrder * REQUESTS_PER_COUNT) / storeLimitPerOrder;
  const maxRate = peak < LIMITS.writeUnitsPerKey ? Number.POSITIVE_INFINITY : keyMaxRate(0, writePerOrder);
  return { place, key, readPerOrder: 0, writePerOrder, maxRate, writesAt };
}

/** docs/operations.md's advice for a sale: a store's limit twice the requests it expects. */
export const SALE_HEADROOM = 2;

/** A limit no lease reaches, so that only the lease rule sizes them. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

/** The leases an instance takes in a second it serves `served` of a store's requests, `before` the second before. */
export function leasesFor(served: number, before: number): number {
  let leased = 0;
  let size: number | undefined;
  let count = 0;
  while (leased < served) {
    size = nextLeaseSize(UNBOUNDED, before, size);
    leased += size;
    count += 1;
  }
  return count;
}

/** Poisson probabilities of 0, 1, 2 … for `mean`, far enough that the rest is negligible. */
function poisson(mean: number): number[] {
  const last = Math.ceil(mean + 12 * Math.sqrt(mean) + 20);
  const p = [Math.exp(-mean)];
  for (let n = 1; n <= last; n++) p.push((p[n - 1] * mean) / n);
  return p;
}

/** An instance's expected leases a second, its requests of the store (this second and the one before) Poisson. */
export function leasesPerSecond(mean: number): number {
  const p = poisson(mean);
  let expected = 0;
  for (let before = 0; before < p.length; before++) {
    for (let served = 1; served < p.length; served++) {
      expected += p[before] * p[served] * leasesFor(served, before);
    }
  }
  return expected;
}

/** A key's units a second at `rate` new orders a second. */
export function unitsAt(load: KeyLoad, rate: number): { read: number; write: number } {
  return { read: load.readPerOrder * rate, write: load.writesAt?.(rate) ?? load.writePerOrder * rate };
}

/** Each function's concurrency at `rate` (invocations a second times seconds each), and their sum. */
export function concurrencyAt(
  measured: Measured,
  rate: number,
): { byFunction: Record<string, number>; total: number } {
  const byFunction: Record<string, number> = {};
  let total = 0;
  for (const [name, { invocations, billedMs, oneAtATime }] of Object.entries(measured.functions)) {
    const needed = oneAtATime ? 1 : (invocations / measured.orders) * rate * (Math.ceil(billedMs) / 1000);
    byFunction[name] = needed;
    total += needed;
  }
  return { byFunction, total };
}

export function apiRequestsAt(measured: Measured, rate: number): number {
  return (measured.apiRequests / measured.orders) * rate;
}

/**
 * The order rate each route's throttle allows (`limits`: requests a second by function), lowest first: a route's
 * requests an order times the rate may not pass it.
 */
export function routeLimits(
  measured: Measured,
  limits: Record<string, number>,
): Array<{ name: string; perOrder: number; maxRate: number }> {
  return Object.entries(limits)
    .filter(([name]) => (measured.functions[name]?.invocations ?? 0) > 0)
    .map(([name, limit]) => {
      const perOrder = measured.functions[name].invocations / measured.orders;
      return { name, perOrder, maxRate: limit / perOrder };
    })
    .sort((a, b) => a.maxRate - b.maxRate);
}

/** The order rates at which the account's Lambda concurrency and API Gateway's throttle are reached. */
export function accountLimits(measured: Measured): { lambdaRate: number; apiRate: number } {
  const fixed = concurrencyAt(measured, 0).total;
  return {
    lambdaRate: (LIMITS.lambdaConcurrency - fixed) / (concurrencyAt(measured, 1).total - fixed),
    apiRate: LIMITS.apiRequestsPerSecond / apiRequestsAt(measured, 1),
  };
}
