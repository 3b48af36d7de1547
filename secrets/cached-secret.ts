/** Fetches a secret once and keeps it for `ttlMs`; concurrent callers share one fetch. */
export class CachedSecret<T> {
  private value?: { secret: T; fetchedAt: number };
  private inFlight?: Promise<T>;

  constructor(
    /** The secret's text, or undefined while it has no value yet. */
    private readonly load: () => Promise<string | undefined>,
    /** Throws an error that names the missing field, never a value. */
    private readonly parse: (text: string | undefined) => T,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
    /** Refreshes come from rejected keys or tokens; this keeps a flood of them from hammering the source. */
    private readonly minRefreshMs = 1_000,
  ) {}

  get(): Promise<T> {
    if (this.value && this.now() - this.value.fetchedAt < this.ttlMs)
      return Promise.resolve(this.value.secret);
    return this.fetch();
  }

  /** Fetches again, unless the value in hand was fetched less than `minRefreshMs` ago. */
  refresh(): Promise<T> {
    if (this.value && this.now() - this.value.fetchedAt < this.minRefreshMs) {
      return Promise.resolve(this.value.secret);
    }
    return this.fetch();
  }

  private fetch(): Promise<T> {
    this.inFlight ??= this.load()
      .then((text) => {
        const secret = this.parse(text);
        this.value = { secret, fetchedAt: this.now() };
        return secret;
      })
      .finally(() => (this.inFlight = undefined));
    return this.inFlight;
  }
}
