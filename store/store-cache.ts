import type { StoreId, StoreRecord, StoreRegistry, TokenOwner } from '../domain/stores';

/** A bounded map of answers kept for a while; concurrent readers of one key share one read. */
class TimedCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  private readonly reading = new Map<string, Promise<T>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  async get(key: string, read: () => Promise<T>): Promise<T> {
    const entry = this.entries.get(key);
    if (entry && this.now() < entry.until) return entry.value;
    return this.reading.get(key) ?? this.refresh(key, read);
  }

  /** Reads the key now, and keeps what it read unless a value was set while the read was out: that one is newer. */
  refresh(key: string, read: () => Promise<T>): Promise<T> {
    const own: Promise<T> = read()
      .then((value) => {
        if (this.reading.get(key) === own) this.set(key, value);
        return value;
      })
      .finally(() => {
        if (this.reading.get(key) === own) this.reading.delete(key);
      });
    this.reading.set(key, own);
    return own;
  }

  set(key: string, value: T): void {
    this.reading.delete(key);
    if (this.ttlMs <= 0) return;
    this.entries.delete(key);
    // The oldest entry goes first: a flood of unknown tokens cannot grow the container's memory.
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { value, until: this.now() + this.ttlMs });
  }
}

/**
 * The registry as a warm container reads it: token owners and store items are kept for `ttlMs`
 * (STORE_CACHE_SECONDS), so that a warm request with a store's token reads no registry item. A token no store
 * holds is remembered too, so that a flood of wrong tokens costs one read each per container per period. A change
 * made through this object is seen by it at once; other containers see it within `ttlMs`.
 */
export class CachedStoreRegistry implements StoreRegistry {
  private readonly owners: TimedCache<TokenOwner | undefined>;
  private readonly stores: TimedCache<StoreRecord | undefined>;

  constructor(
    private readonly registry: StoreRegistry,
    ttlMs: number,
    now: () => number = Date.now,
    maxEntries = 1_000,
  ) {
    this.owners = new TimedCache(ttlMs, maxEntries, now);
    this.stores = new TimedCache(ttlMs, maxEntries, now);
  }

  get(storeId: StoreId): Promise<StoreRecord | undefined> {
    return this.stores.get(storeId, () => this.registry.get(storeId));
  }

  /** The same registry, but each store is read from the table, as a change must (its cache is updated). */
  forChanges(): StoreRegistry {
    return {
      get: (storeId) => this.stores.refresh(storeId, () => this.registry.get(storeId)),
      create: (record) => this.create(record),
      update: (record) => this.update(record),
      addToken: (owner) => this.addToken(owner),
      tokenOwner: (hash) => this.registry.tokenOwner(hash),
      list: (query) => this.registry.list(query),
    };
  }

  async create(record: StoreRecord): Promise<boolean> {
    const created = await this.registry.create(record);
    if (created) this.stores.set(record.id, record);
    return created;
  }

  async update(record: StoreRecord): Promise<boolean> {
    const updated = await this.registry.update(record);
    if (updated) this.stores.set(record.id, record);
    return updated;
  }

  async addToken(owner: TokenOwner): Promise<void> {
    await this.registry.addToken(owner);
    this.owners.set(owner.hash, owner);
  }

  tokenOwner(hash: string): Promise<TokenOwner | undefined> {
    return this.owners.get(hash, () => this.registry.tokenOwner(hash));
  }

  list(query: Parameters<StoreRegistry['list']>[0]) {
    return this.registry.list(query);
  }
}
