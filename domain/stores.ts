// Stores: one deployment serves several shops, each its own data, tokens, callbacks and webhooks (issue 33).

/** Lowercase letters, digits and `-`, at most 32: it appears in keys, URLs and upstream foreign_ids. */
export const STORE_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** The store a deployment from before stores had: its tokens, callback URL, webhook endpoint and orders are this store's. */
export const DEFAULT_STORE_ID = 'default';

export type StoreId = string;

/** Who is calling a route: the store whose data it may see and change. */
export interface Caller {
  storeId: StoreId;
}
