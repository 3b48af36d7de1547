import { DEFAULT_STORE_ID, STORE_ID, type StoreId } from '../domain/stores';
import { str, type Item } from './table';

/** Starts every key of a store other than the default one, before its id; the one place the mark is written. */
export const SCOPE_MARK = 'S#';

/**
 * What every key of the store starts with: nothing for the default store, whose keys are those of a deployment from
 * before stores; `<SCOPE_MARK><storeId>#` for another, so that no two stores' items can share a key (issue 33).
 */
export function storePrefix(storeId: StoreId): string {
  return storeId === DEFAULT_STORE_ID ? '' : `${SCOPE_MARK}${storeId}#`;
}

/** A key of this store's item: every store-scoped key is built here. */
export function scopedKey(storeId: StoreId, key: string): string {
  return `${storePrefix(storeId)}${key}`;
}

/**
 * The store a key belongs to and the key as the default store would have it: what a reader of a global index (the
 * reconcile job over `open-items`, the dispatcher over `deliveries-due`) learns from an item's keys alone. A store
 * id holds no `#`, and no default store's key starts with `SCOPE_MARK`.
 */
export function keyOwner(key: string): { storeId: StoreId; key: string } {
  if (!key.startsWith(SCOPE_MARK)) return { storeId: DEFAULT_STORE_ID, key };
  const end = key.indexOf('#', SCOPE_MARK.length);
  const storeId = key.slice(SCOPE_MARK.length, end);
  if (end < 0 || !STORE_ID.test(storeId)) return { storeId: DEFAULT_STORE_ID, key };
  return { storeId, key: key.slice(end + 1) };
}

/** The `store` attribute an item of another store carries, so that its owner shows in the item; none for `default`. */
export function storeAttribute(storeId: StoreId): Item {
  return storeId === DEFAULT_STORE_ID ? {} : { store: str(storeId) };
}
