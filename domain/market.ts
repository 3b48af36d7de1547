import type { PairQuery, ServiceData } from './model';
import type { ProcessingApi } from './ports';

/** A payment account at the service, and a key naming it: accounts with one key share their cached answers. */
export interface MarketAccount {
  key: string;
  api: ProcessingApi;
}

interface Cached {
  expiresAt: number;
  entries: Promise<ServiceData[]>;
}

/** Rates and pairs are estimates the service marks as for reference only, so a short cache is honest. */
export class MarketService {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  rates(account: MarketAccount, query: PairQuery): Promise<ServiceData[]> {
    return this.cached(account, 'rates', query, () => account.api.rates(query));
  }

  pairs(account: MarketAccount, query: PairQuery): Promise<ServiceData[]> {
    return this.cached(account, 'pairs', query, () => account.api.pairs(query));
  }

  private cached(
    account: MarketAccount,
    kind: string,
    query: PairQuery,
    load: () => Promise<ServiceData[]>,
  ): Promise<ServiceData[]> {
    const key = `${account.key}\u0000${kind}\u0000${query.currency_from}\u0000${query.currency_to}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.entries;
    const entries = load();
    this.cache.set(key, { expiresAt: this.now() + this.ttlMs, entries });
    // A failed load must not be served from the cache, nor take a newer load's place with it.
    entries.catch(() => {
      if (this.cache.get(key)?.entries === entries) this.cache.delete(key);
    });
    return entries;
  }
}
