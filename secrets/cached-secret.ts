/** A secret fetched once and kept for a while; concurrent callers share one fetch. */
export interface CachedSecret<T> {
  get(): Promise<T>;
  /** Fetches again, unless the value in hand is younger than the refresh limit. */
  refresh(): Promise<T>;
}

export function cacheSecret<T>(
  /** The secret's text, or undefined while it has no value yet. */
  load: () => Promise<string | undefined>,
  /** Throws an error that names the missing field, never a value. */
  parse: (text: string | undefined) => T,
  ttlMs: number,
  now: () => number = Date.now,
  /** Refreshes come from rejected keys or tokens; this keeps a flood of them from hammering the source. */
  minRefreshMs = 1_000,
): CachedSecret<T> {
  let value: { secret: T; fetchedAt: number } | undefined;
  let inFlight: Promise<T> | undefined;
  const fetch = () =>
    (inFlight ??= load()
      .then((text) => {
        const secret = parse(text);
        value = { secret, fetchedAt: now() };
        return secret;
      })
      .finally(() => (inFlight = undefined)));
  const youngerThan = (ms: number) =>
    value && now() - value.fetchedAt < ms ? Promise.resolve(value.secret) : fetch();
  return { get: () => youngerThan(ttlMs), refresh: () => youngerThan(minRefreshMs) };
}
