import { NotConfiguredError } from '../../domain/errors';
import { cacheSecret } from '../../secrets/cached-secret';

/** A secret source whose answers and clock the test controls. */
function harness(ttlMs = 10_000) {
  let now = 0;
  let text: string | undefined = 'v1';
  const loads: Array<() => void> = [];
  let held = false;
  const load = jest.fn(
    () =>
      new Promise<string | undefined>((resolve) => {
        const answer = () => resolve(text);
        if (held) loads.push(answer);
        else answer();
      }),
  );
  const parse = (value: string | undefined) => {
    if (value === undefined) throw new NotConfiguredError('not yet');
    return { value };
  };
  const secret = cacheSecret(load, parse, ttlMs, () => now);
  return {
    secret,
    load,
    at: (ms: number) => (now = ms),
    put: (value: string | undefined) => (text = value),
    hold: () => (held = true),
    release: () => loads.splice(0).forEach((answer) => answer()),
  };
}

test('get() fetches once, serves the cache until the TTL is up, then fetches again', async () => {
  const h = harness(10_000);
  expect(await h.secret.get()).toEqual({ value: 'v1' });
  h.put('v2');
  h.at(9_999);
  expect(await h.secret.get()).toEqual({ value: 'v1' });
  h.at(10_000);
  expect(await h.secret.get()).toEqual({ value: 'v2' });
  expect(h.load).toHaveBeenCalledTimes(2);
});

test('concurrent callers share one fetch', async () => {
  const h = harness();
  h.hold();
  const answers = Promise.all([h.secret.get(), h.secret.get(), h.secret.refresh()]);
  h.release();
  expect(await answers).toEqual([{ value: 'v1' }, { value: 'v1' }, { value: 'v1' }]);
  expect(h.load).toHaveBeenCalledTimes(1);
});

test('refresh() fetches again at most once a second, however often it is asked', async () => {
  const h = harness();
  await h.secret.get();
  h.put('v2');
  for (const ms of [1, 500, 999]) {
    h.at(ms);
    expect(await h.secret.refresh()).toEqual({ value: 'v1' });
  }
  expect(h.load).toHaveBeenCalledTimes(1);
  h.at(1_000);
  expect(await h.secret.refresh()).toEqual({ value: 'v2' });
  h.at(1_500);
  expect(await h.secret.refresh()).toEqual({ value: 'v2' });
  expect(h.load).toHaveBeenCalledTimes(2);
  // A refreshed value serves get() for a whole TTL from the refresh.
  h.at(10_999);
  expect(await h.secret.get()).toEqual({ value: 'v2' });
  expect(h.load).toHaveBeenCalledTimes(2);
});

test('a secret with no value yet is not cached: the next call looks again', async () => {
  const h = harness();
  h.put(undefined);
  await expect(h.secret.get()).rejects.toBeInstanceOf(NotConfiguredError);
  h.put('set');
  expect(await h.secret.get()).toEqual({ value: 'set' });
  expect(h.load).toHaveBeenCalledTimes(2);
});
