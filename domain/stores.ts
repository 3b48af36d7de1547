// Stores: one deployment serves several shops, each its own data, tokens, callbacks and webhooks (issue 33).
import type { AccountKind, StoreId } from './ids';
import type { KeySource } from './ports';

export type { AccountKind, StoreId } from './ids';

/** Lowercase letters, digits and `-`, at most 32: it appears in keys, URLs and upstream foreign_ids. */
export const STORE_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** The store a deployment from before stores had: its tokens, callback URL, webhook endpoint and orders are this store's. */
export const DEFAULT_STORE_ID = 'default';

/**
 * Whether a store's refunds carry the travel rule's receiver (domain/travel-rule.ts): `off` refuses a refund with
 * one, `required` one without, and `optional` sends it when given.
 */
export const TRAVEL_RULE_SETTINGS = ['off', 'optional', 'required'] as const;

export type TravelRule = (typeof TRAVEL_RULE_SETTINGS)[number];

/**
 * Every store's setting until it is changed, and the default store's (whose settings are the deployment's):
 * refunds without a receiver go on as before, and a shop that must send one can, with no change of settings.
 */
export const DEFAULT_TRAVEL_RULE: TravelRule = 'optional';

/**
 * Whether a store's checkouts carry the payer's travel-rule data (`sender`, domain/travel-rule.ts), in the same three
 * settings; every store's, the default store's included, until it is changed: without it the service asks the
 * customer on its invoice form.
 */
export const DEFAULT_TRAVEL_RULE_SENDER: TravelRule = 'optional';

/** Who is calling a route: the store whose data it may see and change. */
export interface Caller {
  storeId: StoreId;
  /** How it proved itself, on a bearer route: a store's token of a scope, or the platform token. */
  scope?: CallerScope;
}

/** A store's signing secrets for its webhooks, the current one first (Standard Webhooks `whsec_...`). */
export type WebhookSecrets = () => Promise<readonly string[]>;

/** What a store's data, calls and webhooks need to know of it. */
export interface StoreAccount {
  storeId: StoreId;
  status: 'active' | 'disabled';
  /**
   * `shared`: the deployment's processing account (the default store's keys), with the store's prefix on upstream
   * foreign_ids; `own`: the store's own keys and base URL, its callbacks at `/callbacks/{store_id}`.
   */
  processing: { account: 'shared' } | { account: 'own'; baseUrl: string; keys: KeySource };
  /** The account its records that name none were made on: those from before 0.6.0 pinned no account. */
  unpinned: AccountKind;
  /** Where and how the store's webhooks go; undefined when the store has no endpoint. */
  webhook?: { url: string; secrets: WebhookSecrets };
  /** Whether its refunds carry the receiver (domain/travel-rule.ts); absent: DEFAULT_TRAVEL_RULE. */
  travelRule?: TravelRule;
  /** Whether its checkouts carry the payer (domain/travel-rule.ts); absent: DEFAULT_TRAVEL_RULE_SENDER. */
  travelRuleSender?: TravelRule;
  /** How many days its refunds' claim links take an address; absent: the deployment's CLAIM_LINK_DAYS. */
  claimLinkDays?: number;
}

export interface StoreAccounts {
  /** The store's account, cached in the warm container; undefined when there is no such store. */
  get(storeId: StoreId): Promise<StoreAccount | undefined>;
}

/**
 * A store's status, one line a value. Moves: active → disabled (`POST /stores/{id}/disable`), disabled → active
 * (`/enable`); each is idempotent, and no other move exists. A store is never deleted: its records stay its own.
 */
export const STORE_STATUSES = {
  /** Its storefront and admin tokens work on its own routes. */
  active: 'active',
  /** Its tokens answer 403 `store_disabled`; its callbacks are still applied and its webhooks still sent. */
  disabled: 'disabled',
} as const;

export type StoreStatus = keyof typeof STORE_STATUSES;

/** Who a bearer token speaks for: a store's storefront or back office, or the platform that manages stores. */
export type TokenScope = 'storefront' | 'admin';
export type CallerScope = TokenScope | 'platform';

/** A store's current tokens, as SHA-256 digests in hex: a token itself is never stored. */
export type TokenHashes = Record<TokenScope, string>;

/**
 * A store of the registry; never a key, a token or a secret. The default store has none: its facts are the
 * deployment's own (its tokens secret, processing keys secret and WEBHOOK_URL).
 */
export interface StoreRecord {
  id: StoreId;
  name: string;
  status: StoreStatus;
  /** `shared`: the deployment's processing account; `own`: the store's keys, in its secret, at `baseUrl`. */
  account: AccountKind;
  baseUrl?: string;
  webhookUrl?: string;
  createdAt: number;
  updatedAt: number;
  /** Compare-and-set: every change writes version + 1 on the version it read. */
  version: number;
  tokens: TokenHashes;
  /** The tokens a rotation replaced: they still work until `expiresAt` (epoch ms). */
  previousTokens?: TokenHashes & { expiresAt: number };
  /**
   * A store whose create has not written its secret yet: it is not found, not listed, and its tokens are refused.
   * `request` is a salted digest of the create's body, never the keys, so that the same body alone may finish it.
   */
  unfinished?: SecretLease & { request: string };
  /** A change of the store's secret under way (its processing keys, or a webhook secret rotation): one at a time. */
  keysChange?: SecretLease;
  /** When the webhook secret a rotation replaced stops signing beside the new one (epoch ms). */
  previousWebhookSecretExpiresAt?: number;
  /** When it moved from the shared account to its own (epoch ms): its records that name no account are shared. */
  movedFromShared?: number;
  /** Absent: DEFAULT_TRAVEL_RULE (domain/travel-rule.ts). */
  travelRule?: TravelRule;
  /** Absent: DEFAULT_TRAVEL_RULE_SENDER (domain/travel-rule.ts). */
  travelRuleSender?: TravelRule;
  /** Absent: the deployment's CLAIM_LINK_DAYS. */
  claimLinkDays?: number;
  /** Absent: the stage's `storeRequestsPerSecond` (domain/request-limits.ts). */
  requestsPerSecond?: number;
}

/**
 * The one request that may write a store's secret, until `until` (epoch ms); after it, a retry may take the store
 * over. `version` is the store version whose write took the lease: its holder knows its lease by it.
 */
export interface SecretLease {
  until: number;
  version: number;
}

/**
 * How long a create or a change of keys holds the store's secret: over twice an API function's timeout (a test
 * holds it to lib/routes.ts), so that a holder's invocation has ended, and any write it sent has landed, before it.
 */
export const SECRET_LEASE_MS = 60_000;

/** The lease taken at `now` by the write of store version `version`. */
export function secretLease(now: number, version: number): SecretLease {
  return { until: now + SECRET_LEASE_MS, version };
}

/** The secrets that sign a store's webhooks now: the previous one only until its overlap ends. */
export function signingSecrets(
  record: StoreRecord,
  secrets: readonly string[],
  now: number,
): readonly string[] {
  const until = record.previousWebhookSecretExpiresAt;
  return until !== undefined && now >= until ? secrets.slice(0, 1) : secrets;
}

/** The registry entry of one token: whose it is; found by its digest. */
export interface TokenOwner {
  hash: string;
  storeId: StoreId;
  scope: TokenScope;
}

/** The stores of a deployment, other than the default one; written only with conditional single-item writes. */
export interface StoreRegistry {
  get(storeId: StoreId): Promise<StoreRecord | undefined>;
  /** Creates the store unless its id is taken: false when it is. */
  create(record: StoreRecord): Promise<boolean>;
  /** Writes `record` over the version before it (`record.version - 1`): false when another change came first. */
  update(record: StoreRecord): Promise<boolean>;
  /** Records a token's digest as the store's (once, before the store item names it). */
  addToken(owner: TokenOwner): Promise<void>;
  /** Whose token has this digest; undefined when none. */
  tokenOwner(hash: string): Promise<TokenOwner | undefined>;
  /** Finished stores by creation time, oldest first, after `after` (the last of the page before). */
  list(query: { limit: number; after?: { createdAt: number; id: StoreId } }): Promise<{
    records: StoreRecord[];
    more: boolean;
  }>;
}

/** What a store's secret holds: its own processing keys, if it has its own account, and its webhook secrets. */
export interface StoreSecretValues {
  processing?: { apiKey: string; secretKey: string };
  /** `whsec_...`, the current one first. */
  webhookSecrets: readonly string[];
}

/** One secret per store (`<prefix>/stores/<id>`); keys and webhook secrets are written there, never in the table. */
export interface StoreSecrets {
  /** Creates the store's secret with its first value (or writes over a secret left by an unfinished create). */
  create(storeId: StoreId, values: StoreSecretValues): Promise<void>;
  /** The values; undefined when the secret has none yet. */
  read(storeId: StoreId): Promise<StoreSecretValues | undefined>;
  write(storeId: StoreId, values: StoreSecretValues): Promise<void>;
}

/** Whether a store's token digest `hash` of `scope` is accepted at `now` (epoch ms). */
export function acceptsToken(record: StoreRecord, scope: TokenScope, hash: string, now: number): boolean {
  // An unfinished store's tokens were never answered to anyone: none works until its create finishes.
  if (record.unfinished) return false;
  if (record.tokens[scope] === hash) return true;
  const previous = record.previousTokens;
  return previous !== undefined && previous[scope] === hash && now < previous.expiresAt;
}

/** Who presented a bearer token: its scope, and the store it acts for. */
export interface TokenHolder {
  scope: CallerScope;
  /** The platform token's is undefined: it names the store it acts for in `Store-Id`. */
  storeId?: StoreId;
  /** A store token's store status, when its lookup read it. */
  status?: StoreStatus;
}

/** Resolves bearer tokens to their holders: the HTTP layer's port. */
export interface BearerTokens {
  /** Undefined when no store and no platform holds it. Compares digests in constant time. */
  holderOf(token: string): Promise<TokenHolder | undefined>;
  /** A store's status, for a caller acting for it; undefined when there is no such store, or it is unfinished. */
  statusOf(storeId: StoreId): Promise<StoreStatus | undefined>;
}

/** The platform token's source: the tokens accepted now (a rotation's previous one until it ends). */
export interface PlatformTokenSource {
  get(): Promise<readonly string[]>;
  /** Looks again, at most once a second: the token may have just been rotated in. */
  refresh(): Promise<readonly string[]>;
}
