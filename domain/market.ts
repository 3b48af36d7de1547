import type { PairQuery, ServiceData } from './model';
import type { ProcessingApi } from './ports';

interface Cached {
  expiresAt: number;
  entries: Promise<ServiceData[]>;
}

/** Rates and pairs are estimates the service marks as for reference only, so a short cache is honest. */
export class MarketService {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly processing: ProcessingApi,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  rates(query: PairQuery): Promise<ServiceData[]> {
    return this.cached('rates', query, () => this.processing.rates(query));
  }

  pairs(query: PairQuery): Promise<ServiceData[]> {
    return this.cached('pairs', query, () => this.processing.pairs(query));
  }

  private cached(kind: string, query: PairQuery, load: () => Promise<ServiceData[]>): Promise<ServiceData[]> {
    const key = `${kind}:${query.currency_from}:${query.currency_to}`;
    const hit = this.cache.get(key);
    if (hit && hit.expiresAt > this.now()) return hit.entries;
    const entries = load();
    this.cache.set(key, { expiresAt: this.now() + this.ttlMs, entries });
    // A failed load must not be served from the cache.
    entries.catch(() => this.cache.delete(key));
    return entries;
  }
}
