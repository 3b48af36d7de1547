// The lease arithmetic of the per-store limits, against an in-memory count that behaves as the table's conditional ADD.
import {
  LEASES_PER_SECOND,
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

  async take(storeId: string, second: number, slice: number, limit: number): Promise<boolean> {
    this.writes += 1;
    const key = `${storeId}#${second}`;
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
      () =>
        new StoreRequestLimits({
          leases,
          limitOf: async (storeId) => limits[storeId],
          now: () => clock.ms,
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

test('one function admits exactly the limit in a second when it is a whole number of slices, then refuses', async () => {
  const { leases, functions } = setUp({ shop: 100 });
  const [limits] = functions(1);
  expect(await admitted(limits, 'shop', 500)).toBe(100);
  // One write a slice, and one refused: the refused requests after it take none.
  expect(leases.writes).toBe(100 / sliceOf(100) + 1);
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
  // The writes are bounded by the leases a second's limit allows, plus one refusal per function.
  expect(leases.writes).toBeLessThanOrEqual(LEASES_PER_SECOND + many.length);
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
