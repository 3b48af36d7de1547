// The lease arithmetic of the per-store limits, against an in-memory count that behaves as the table's conditional ADD.
import {
  countsOf,
  LEASES_PER_SECOND,
  nextLeaseSize,
  RateLimitedError,
  sliceOf,
  StoreRequestLimits,
} from '../../domain/request-limits';
import type { RequestLeases } from '../../domain/ports';

/** A lease is refused once the second's count reaches the limit; only the last lease can pass it, by its slice. */
function mostAdmitted(limit: number): number {
  return limit - 1 + sliceOf(limit);
}

/** Each store's count by second, as the lease item holds it; every lease tried is counted, as a write. */
class MemoryLeases implements RequestLeases {
  readonly counts = new Map<string, number>();
  writes = 0;

  readonly writesByKey = new Map<string, number>();

  async take(storeId: string, second: number, count: number, slice: number, limit: number): Promise<boolean> {
    this.writes += 1;
    const key = `${storeId}#${second}#${count}`;
    this.writesByKey.set(key, (this.writesByKey.get(key) ?? 0) + 1);
    const admitted = this.counts.get(key) ?? 0;
    if (admitted >= limit) return false;
    this.counts.set(key, admitted + slice);
    return true;
  }
}

function setUp(limits: Record<string, number>, startMs = 1_000_000) {
  const leases = new MemoryLeases();
  const clock = { ms: startMs };
  const functions = (count: number) =>
    Array.from(
      { length: count },
      (_, seed) =>
        new StoreRequestLimits({
          leases,
          limitOf: async (storeId) => limits[storeId],
          now: () => clock.ms,
          seed,
        }),
    );
  return { leases, clock, functions };
}

/** How many of `requests` one function admits, the rest refused with RateLimitedError. */
async function admitted(limits: StoreRequestLimits, storeId: string, requests: number): Promise<number> {
  let count = 0;
  for (let i = 0; i < requests; i++) {
    try {
      await limits.admit(storeId);
      count += 1;
    } catch (error) {
      expect(error).toBeInstanceOf(RateLimitedError);
    }
  }
  return count;
}

test('a slice is a twentieth of the limit, at least one', () => {
  expect([1, 19, 20, 21, 50, 1000, 45_000].map(sliceOf)).toEqual([1, 1, 1, 2, 3, 50, 2250]);
  expect(mostAdmitted(50)).toBe(52);
  expect(mostAdmitted(1)).toBe(1);
});

test('a lease is one more than the function served in its last second, doubling within a second, at most a slice', () => {
  expect(nextLeaseSize(1000, 0)).toBe(1);
  expect(nextLeaseSize(1000, 6)).toBe(7);
  expect(nextLeaseSize(1000, 6, 7)).toBe(14);
  expect(nextLeaseSize(1000, 400)).toBe(sliceOf(1000));
  expect(nextLeaseSize(1000, 0, 32)).toBe(sliceOf(1000));
  expect(nextLeaseSize(3, 0, 1)).toBe(1);
  // Requests waiting on a lease size it when they are more.
  expect(nextLeaseSize(1000, 0, undefined, 10)).toBe(10);
  expect(nextLeaseSize(1000, 0, undefined, 400)).toBe(sliceOf(1000));
});

test('one function admits the limit, at most a slice less one over it, then refuses', async () => {
  const { leases, functions } = setUp({ shop: 100 });
  const [limits] = functions(1);
  const count = await admitted(limits, 'shop', 500);
  expect(count).toBeGreaterThanOrEqual(100);
  expect(count).toBeLessThanOrEqual(mostAdmitted(100));
  // Leases of 1, 2 and 4, then slices of 5 to the limit, and one refused: the refused requests after it take none.
  expect(leases.writes).toBe(3 + Math.ceil((100 - 7) / sliceOf(100)) + 1);
});

test('the next second admits again, and a refusal names the limit with a Retry-After of one second', async () => {
  const { clock, functions } = setUp({ shop: 3 });
  const [limits] = functions(1);
  expect(await admitted(limits, 'shop', 10)).toBe(3);
  const refusal = await limits.admit('shop').catch((error: unknown) => error);
  expect(refusal).toMatchObject({ code: 'rate_limited', limit: 3, retryAfterSeconds: 1 });
  expect((refusal as Error).message).toContain('limit of 3 requests a second');
  clock.ms += 1000;
  expect(await admitted(limits, 'shop', 10)).toBe(3);
});

test('many functions of one store admit no more than the limit and one slice over it', async () => {
  const { leases, functions } = setUp({ shop: 1000 });
  const many = functions(30);
  let total = 0;
  // Each function takes turns with a few requests, as a busy store's warm functions would.
  for (let round = 0; round < 20; round++) {
    for (const limits of many) total += await admitted(limits, 'shop', 7);
  }
  expect(total).toBeLessThanOrEqual(mostAdmitted(1000));
  expect(total).toBeGreaterThan(1000 - many.length * sliceOf(1000));
  // Each function's leases double up to a slice; then the limit's slices, and one refusal per function.
  const doublings = Math.ceil(Math.log2(sliceOf(1000)));
  expect(leases.writes).toBeLessThanOrEqual(many.length * (doublings + 1) + LEASES_PER_SECOND);
});

test('a store spread thin over many functions is admitted up to its limit, not only by twenty of them', async () => {
  const { leases, clock, functions } = setUp({ shop: 1000 });
  const many = functions(100);
  let total = 0;
  for (const limits of many) total += await admitted(limits, 'shop', 5);
  expect(total).toBe(500);
  // The next second, each function leases what it served before and one more: one write each.
  clock.ms += 1000;
  leases.writes = 0;
  total = 0;
  for (const limits of many) total += await admitted(limits, 'shop', 5);
  expect(total).toBe(500);
  expect(leases.writes).toBe(many.length);
});

test("a function's first lease of a second is sized by what it served in the second before", async () => {
  const { leases, clock, functions } = setUp({ shop: 10_000 });
  const [limits] = functions(1);
  expect(await admitted(limits, 'shop', 40)).toBe(40);
  // 1, 2, 4, 8, 16 and 32: six leases in the first second.
  expect(leases.writes).toBe(6);
  clock.ms += 1000;
  expect(await admitted(limits, 'shop', 40)).toBe(40);
  expect(leases.writes).toBe(7);
  // After a second without the store, it starts from one again.
  clock.ms += 2000;
  await limits.admit('shop');
  expect(leases.writes).toBe(8);
});

test("a store over its limit leaves another store's requests admitted", async () => {
  const { functions } = setUp({ busy: 5, quiet: 50 });
  const [limits] = functions(1);
  expect(await admitted(limits, 'busy', 200)).toBe(5);
  expect(await admitted(limits, 'quiet', 50)).toBe(50);
});

test("a function's concurrent requests of one store wait for one lease, not one each", async () => {
  const { leases, functions } = setUp({ shop: 1000 });
  const [limits] = functions(1);
  await Promise.all(Array.from({ length: 10 }, () => limits.admit('shop')));
  expect(leases.writes).toBe(1);
});

test('a lease that ends in the next second admits the requests that waited on it, with no other write', async () => {
  const { leases, clock, functions } = setUp({ shop: 1000 });
  const [limits] = functions(1);
  // The table answers only once the second is over, as a slow or failing-open lease does.
  const take = leases.take.bind(leases);
  leases.take = async (...args) => {
    if (leases.writes >= 5) throw new Error('leased again every second');
    clock.ms += 1_500;
    return take(...args);
  };
  await Promise.all(Array.from({ length: 3 }, () => limits.admit('shop')));
  expect(leases.writes).toBe(1);
});

test('a lease refused as the second ends refuses the requests that waited on it; the next request leases anew', async () => {
  const { leases, clock, functions } = setUp({ shop: 1 });
  const [limits] = functions(1);
  leases.counts.set(`shop#${Math.floor(clock.ms / 1000)}#0`, 1);
  const take = leases.take.bind(leases);
  leases.take = async (...args) => {
    const taken = await take(...args);
    clock.ms += 1_500;
    return taken;
  };
  const waited = await Promise.allSettled([limits.admit('shop'), limits.admit('shop')]);
  for (const outcome of waited) {
    expect(outcome).toMatchObject({ status: 'rejected', reason: expect.any(RateLimitedError) });
  }
  expect(leases.writes).toBe(1);
  await limits.admit('shop');
  expect(leases.writes).toBe(2);
});

test('a limit over a thousand is counted on one item per thousand, each its share', () => {
  expect([1, 1000, 1001, 5000, 45_000].map(countsOf)).toEqual([
    { counts: 1, share: 1 },
    { counts: 1, share: 1000 },
    { counts: 2, share: 501 },
    { counts: 5, share: 1000 },
    { counts: 45, share: 1000 },
  ]);
});

test("many functions of a busy store spread their leases over its counts, and none admits past a count's share", async () => {
  const { leases, functions } = setUp({ shop: 5000 });
  const many = functions(100);
  let total = 0;
  for (const limits of many) total += await admitted(limits, 'shop', 30);
  expect(total).toBe(3000);
  const { counts, share } = countsOf(5000);
  expect(leases.writesByKey.size).toBe(counts);
  // Each count takes its share of the writes: no count is the hot one.
  for (const writes of leases.writesByKey.values()) expect(writes).toBe(leases.writes / counts);
  for (const admittedOnCount of leases.counts.values()) {
    expect(admittedOnCount).toBeLessThanOrEqual(share - 1 + sliceOf(share));
  }
});

test('one function alone moves from a full count to the next, and so reaches the whole limit', async () => {
  const { functions } = setUp({ shop: 3000 });
  const [limits] = functions(1);
  const count = await admitted(limits, 'shop', 5000);
  const { counts, share } = countsOf(3000);
  expect(count).toBeGreaterThanOrEqual(3000);
  expect(count).toBeLessThanOrEqual(counts * (share - 1 + sliceOf(share)));
});
