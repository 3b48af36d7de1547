// The heat model's arithmetic: per-order units, shards sharing their family's load, the limits and the account's.
import {
  accountLimits,
  apiRequestsAt,
  concurrencyAt,
  heatOf,
  keyMaxRate,
  leaseLoad,
  leasesFor,
  leasesPerSecond,
  routeLimits,
  unitsAt,
} from '../../bench/heat-model';
import type { Measured, KeyRules } from '../../bench/heat-model';

const rules: KeyRules = {
  isOrderKey: ({ key }) => key.startsWith('INVOICE#o'),
  readPerRun: ({ place }) => place === 'due',
  computedApart: ({ key }) => key.startsWith('LIMIT#'),
  shardFamily: ({ place, key }) => {
    const match = /^(.*#)\d+$/.exec(key);
    return match && place === 'due' ? { family: `${match[1]}<n>`, shards: 4 } : undefined;
  },
};

const measured: Measured = {
  orders: 100,
  keys: [
    { place: 'table', key: 'INVOICE#o1', readUnits: 10, writeUnits: 6 },
    { place: 'table', key: 'INVOICE#o2', readUnits: 12, writeUnits: 4 },
    { place: 'open', key: 'OPEN#INVOICE', readUnits: 30, writeUnits: 200 },
    // 400 WCU over four shards: 1 WCU an order on each, whichever shard the small run happened to load most.
    // The list queries of a job's runs: not per order, so not in the load.
    { place: 'due', key: 'DUE#0', readUnits: 90_000, writeUnits: 250 },
    { place: 'due', key: 'DUE#1', readUnits: 0, writeUnits: 150 },
    { place: 'created', key: 'STORE#INVOICE', readUnits: 450, writeUnits: 10 },
    // One process's leases: computed apart, never measured.
    { place: 'table', key: 'LIMIT#shop#1', readUnits: 0, writeUnits: 100_000 },
  ],
  functions: {
    checkout: { invocations: 100, billedMs: 200 },
    'get-invoice': { invocations: 2_000, billedMs: 4.2 },
    reconcile: { invocations: 5, billedMs: 150, oneAtATime: true },
  },
  apiRequests: 2_300,
};

test('a key limits the rate at 1,000 WCU or 3,000 RCU a second, whichever it reaches first', () => {
  expect(keyMaxRate(0, 2)).toBe(500);
  expect(keyMaxRate(6, 1)).toBe(500);
  expect(keyMaxRate(3, 0.5)).toBe(1_000);
  expect(keyMaxRate(0, 0)).toBe(Number.POSITIVE_INFINITY);
});

test('each place has its hottest shared key; a shard carries its share of the family', () => {
  const report = heatOf(measured, rules);
  const byPlace = Object.fromEntries(report.hottest.map((load) => [load.place, load]));
  expect(Object.keys(byPlace).sort()).toEqual(['created', 'due', 'open']);
  expect(byPlace.open).toMatchObject({
    key: 'OPEN#INVOICE',
    readPerOrder: 0.3,
    writePerOrder: 2,
    maxRate: 500,
  });
  expect(byPlace.due).toMatchObject({ key: 'DUE#<n>', readPerOrder: 0, writePerOrder: 1, maxRate: 1_000 });
  // 4.5 RCU an order reach 3,000 RCU a second at 666 orders a second, before its 0.1 WCU would matter.
  expect(byPlace.created.readPerOrder).toBe(4.5);
  expect(byPlace.created.maxRate).toBeCloseTo(3_000 / 4.5, 9);
  expect(unitsAt(byPlace.open, 2_000)).toEqual({ read: 600, write: 4_000 });
});

test('the highest rate is the least of the keys, and an order of its own key does not limit it', () => {
  const report = heatOf(measured, rules);
  expect(report.maxRate).toBe(500);
  expect(report.limitedBy.key).toBe('OPEN#INVOICE');
  expect(report.orderKey).toEqual({ readUnits: 12, writeUnits: 6 });
  expect(report.loads.map((load) => load.key)).not.toContain('INVOICE#o1');
});

test('concurrency: invocations an order, times the rate, times billed seconds; a scheduled job needs one', () => {
  const at = concurrencyAt(measured, 1_000);
  expect(at.byFunction.checkout).toBeCloseTo(200, 9);
  // 20 polls an order, billed in whole ms: 5 ms each.
  expect(at.byFunction['get-invoice']).toBeCloseTo(100, 9);
  expect(at.byFunction.reconcile).toBe(1);
  expect(at.total).toBeCloseTo(301, 9);
  expect(apiRequestsAt(measured, 1_000)).toBe(23_000);
  const limits = accountLimits(measured);
  // 0.3 concurrency per order a second beside the one run of the job: 999 / 0.3.
  expect(limits.lambdaRate).toBeCloseTo(3_330, 6);
  expect(limits.apiRate).toBeCloseTo(10_000 / 23, 9);
});

test("each route's throttle allows its rate over its requests an order, the tightest first", () => {
  // 20 polls an order at 100 a second: 5 orders a second; one checkout an order: 100.
  expect(routeLimits(measured, { checkout: 100, 'get-invoice': 100, 'no-calls': 10 })).toEqual([
    { name: 'get-invoice', perOrder: 20, maxRate: 5 },
    { name: 'checkout', perOrder: 1, maxRate: 100 },
  ]);
});

test('an instance leases one more than it served the second before, doubling when that is not enough', () => {
  expect(leasesFor(76, 0)).toBe(7); // 1 + 2 + 4 + 8 + 16 + 32 + 64
  expect(leasesFor(76, 76)).toBe(1);
  expect(leasesFor(80, 76)).toBe(2); // 77, then 154
  expect(leasesFor(1, 0)).toBe(1);
});

test("an instance's leases a second: at least its chance of serving the store, more when a second lease is needed", () => {
  // A rare store: one lease whenever it is served, almost never two.
  expect(leasesPerSecond(0.01)).toBeCloseTo(1 - Math.exp(-0.01), 4);
  // A busy one: Poisson demand passes last second's count and one about half the time.
  expect(leasesPerSecond(50)).toBeGreaterThan(1.4);
  expect(leasesPerSecond(50)).toBeLessThan(1.5);
  for (const mean of [0.5, 2, 5]) expect(leasesPerSecond(mean)).toBeGreaterThan(1 - Math.exp(-mean));
});

test("a store's request-limit counts: each serving instance's leases, spread over the counts its limit has", () => {
  const one = leaseLoad(measured, ['checkout', 'get-invoice'], 1, 'table', 'LIMIT#<store>#<second>#<count>');
  // checkout: 0.2 instances an order, 5 of the store's requests a second each; get-invoice: 0.1, 200 each.
  expect(one.writePerOrder).toBeCloseTo(0.2 * leasesPerSecond(5) + 0.1 * leasesPerSecond(200), 6);
  // The store's limit is twice its 23 requests an order: one count to 21 orders a second, then one per 1,000.
  expect(unitsAt(one, 10).write).toBeCloseTo(one.writePerOrder * 10, 6);
  expect(unitsAt(one, 1000).write).toBeCloseTo((one.writePerOrder * 1000) / 46, 6);
  // Each count's writes level off far below a key's limit, so the counts never set the rate.
  expect(one.maxRate).toBe(Number.POSITIVE_INFINITY);
  // With few requests an order, one count carries the lease writes past the limit: the rate is where they reach it.
  const few = leaseLoad({ ...measured, apiRequests: 10 }, ['checkout', 'get-invoice'], 1, 'table', 'L');
  expect(few.maxRate).toBeCloseTo(1000 / few.writePerOrder, 6);
  // A hundred stores: an instance serves a given store less often; the scheduled job leases nothing.
  const many = leaseLoad(measured, ['checkout', 'get-invoice', 'reconcile'], 100, 'table', 'L');
  expect(many.writePerOrder).toBeCloseTo(0.2 * leasesPerSecond(0.05) + 0.1 * leasesPerSecond(2), 6);
  const report = heatOf(measured, rules, [few]);
  expect(report.loads.some((load) => load.key === 'LIMIT#shop#1')).toBe(false);
  expect(report.hottest.find((load) => load.place === 'table')).toBe(few);
});
