import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';

/**
 * A key of this store's item: the default store's keys are those of a deployment from before stores, unchanged;
 * another store's start with `S#<storeId>#`, so that no two stores' items can share a key (issue 33).
 */
export function scopedKey(storeId: StoreId, key: string): string {
  return storeId === DEFAULT_STORE_ID ? key : `S#${storeId}#${key}`;
}
