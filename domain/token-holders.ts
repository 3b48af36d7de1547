// Who holds a bearer token: the default store's tokens (the tokens secret), the platform token (its own secret),
// or another store's (the registry, by digest, where issueTokens puts it). Every comparison is of SHA-256 digests,
// in constant time.
import { hash, timingSafeEqual } from 'node:crypto';
import type { Tokens, TokenSource } from './ports';
import {
  acceptsToken,
  DEFAULT_STORE_ID,
  type BearerTokens,
  type PlatformTokenSource,
  type StoreId,
  type StoreRecord,
  type StoreRegistry,
  type StoreStatus,
  type TokenHashes,
  type TokenHolder,
  type TokenScope,
} from './stores';

export interface TokenHolderSources {
  defaultTokens: TokenSource;
  platformToken: PlatformTokenSource;
  /** Cached in the warm container (store/store-cache.ts). */
  registry: StoreRegistry;
  /** The store item read from the table, never the cache (it refreshes the cache): after a rotation. */
  storeNow: (storeId: StoreId) => Promise<StoreRecord | undefined>;
  now: () => number;
}

export function tokenDigest(token: string): Buffer {
  return hash('sha256', token, 'buffer');
}

/** A store's tokens in clear, answered once: when made, and when rotated. */
export type IssuedTokens = Record<TokenScope, string>;

/** What issuing a store's tokens needs: fresh tokens, their digests, and the registry that says whose they are. */
export interface TokenIssuing {
  /** Read for a change: never from a cache. */
  registry: StoreRegistry;
  /** 256 random bits, URL-safe. */
  newToken: () => string;
  /** SHA-256 in hex: how a token is found and kept. */
  hashToken: (token: string) => string;
}

/** New tokens for the store, each registered as its own before the store item names it; only digests are kept. */
export async function issueTokens(
  { registry, newToken, hashToken }: TokenIssuing,
  storeId: StoreId,
): Promise<{ tokens: IssuedTokens; hashes: TokenHashes }> {
  const tokens = { storefront: newToken(), admin: newToken() };
  const hashes = { storefront: hashToken(tokens.storefront), admin: hashToken(tokens.admin) };
  for (const scope of ['storefront', 'admin'] as const) {
    await registry.addToken({ hash: hashes[scope], storeId, scope });
  }
  return { tokens, hashes };
}

/**
 * The default store's and the platform's tokens are checked first, from their secrets, with no table read; then
 * the registry, by the token's digest. A token none of them knows sends the secrets to be read again (a rotation
 * may have just put it in), never the registry, whose misses are cached.
 */
export class TokenHolders implements BearerTokens {
  private readonly digests = new WeakMap<object, Buffer[]>();

  constructor(private readonly sources: TokenHolderSources) {}

  async holderOf(token: string): Promise<(TokenHolder & { status?: StoreStatus }) | undefined> {
    const given = tokenDigest(token);
    const { defaultTokens, platformToken } = this.sources;
    const known =
      this.defaultHolder(await defaultTokens.get(), given) ??
      this.platformHolder(await platformToken.get(), given) ??
      (await this.registryHolder(given));
    if (known !== undefined) return known === 'refused' ? undefined : known;
    return (
      this.defaultHolder(await defaultTokens.refresh(), given) ??
      this.platformHolder(await platformToken.refresh(), given)
    );
  }

  /** An unfinished store is no store yet; one cached unfinished is read again, uncached: it may have just finished. */
  async statusOf(storeId: StoreId): Promise<StoreStatus | undefined> {
    if (storeId === DEFAULT_STORE_ID) return 'active';
    let record = await this.sources.registry.get(storeId);
    if (record?.unfinished) record = await this.sources.storeNow(storeId);
    return record && !record.unfinished ? record.status : undefined;
  }

  /** The default store's holder carries its status, which is always active (statusOf): the route reads no other. */
  private defaultHolder(tokens: Tokens, given: Buffer): (TokenHolder & { status: StoreStatus }) | undefined {
    // The admin token is looked at first: the same token in both lists is the admin's.
    for (const scope of ['admin', 'storefront'] as const) {
      if (this.matches(tokens[scope], given)) return { scope, storeId: DEFAULT_STORE_ID, status: 'active' };
    }
    return undefined;
  }

  private platformHolder(tokens: readonly string[], given: Buffer): TokenHolder | undefined {
    return this.matches(tokens, given) ? { scope: 'platform' } : undefined;
  }

  /** A store's token by its digest; `refused` when the registry knows it but it no longer works (rotated out). */
  private async registryHolder(
    given: Buffer,
  ): Promise<(TokenHolder & { status: StoreStatus }) | 'refused' | undefined> {
    const hex = given.toString('hex');
    const owner = await this.sources.registry.tokenOwner(hex);
    if (!owner || !timingSafeEqual(Buffer.from(owner.hash, 'hex'), given)) return undefined;
    const scope = owner.scope as TokenScope;
    let record = await this.sources.registry.get(owner.storeId);
    // A token the cached item does not list may be a rotation's new one: the item is read again, uncached.
    if (record && !acceptsToken(record, scope, hex, this.sources.now()))
      record = await this.sources.storeNow(owner.storeId);
    if (!record || !acceptsToken(record, scope, hex, this.sources.now())) return 'refused';
    return { scope: owner.scope, storeId: owner.storeId, status: record.status };
  }

  /** Each list of accepted tokens is hashed once, for as long as its source answers the same list. */
  private matches(tokens: readonly string[], given: Buffer): boolean {
    let digests = this.digests.get(tokens);
    if (!digests) {
      digests = tokens.map(tokenDigest);
      this.digests.set(tokens, digests);
    }
    return digests.some((expected) => timingSafeEqual(given, expected));
  }
}
