// Stores: one deployment serves several shops, each its own data, tokens, callbacks and webhooks (issue 33).
import type { KeySource } from './ports';

/** Lowercase letters, digits and `-`, at most 32: it appears in keys, URLs and upstream foreign_ids. */
export const STORE_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** The store a deployment from before stores had: its tokens, callback URL, webhook endpoint and orders are this store's. */
export const DEFAULT_STORE_ID = 'default';

export type StoreId = string;

/** Who is calling a route: the store whose data it may see and change. */
export interface Caller {
  storeId: StoreId;
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
  /** Where and how the store's webhooks go; undefined when the store has no endpoint. */
  webhook?: { url: string; secrets: WebhookSecrets };
}

export interface StoreAccounts {
  /** The store's account, cached in the warm container; undefined when there is no such store. */
  get(storeId: StoreId): Promise<StoreAccount | undefined>;
}
