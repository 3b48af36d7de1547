import type { StoreId } from '../domain/stores';
import { DELIVERIES_DUE_INDEX } from './schema';
import { scopedKey } from './store-scope';
import { shardOf, sortableTime, str, type Item } from './table';

const { partitionKey: DUE_PK, sortKey: DUE_SK, failedShards: FAILED_SHARDS } = DELIVERIES_DUE_INDEX;

/** `DUE`: the deployment's one list of what the dispatcher has to do; `FAILED`: each store's own. */
export type DueList = 'DUE' | 'FAILED';

/**
 * The `deliveries-due` index's keys for an item listed at `at` (ms); `key` picks its shard. `DUE` is one list for
 * every store, over the deployment's `shards`; a failed delivery is listed in its store's partitions (issue 33: the
 * default store's are those of before stores), so `FAILED` takes its store.
 */
export function dueKeys(list: 'DUE', key: string, at: number, shards: number): Item;
export function dueKeys(list: 'FAILED', key: string, at: number, storeId: StoreId): Item;
export function dueKeys(list: DueList, key: string, at: number, shardsOrStore: number | StoreId): Item {
  const partition =
    list === 'DUE'
      ? partitionOf(list, shardOf(key, shardsOrStore as number), undefined)
      : partitionOf(list, shardOf(key, FAILED_SHARDS), shardsOrStore as StoreId);
  return { [DUE_PK]: str(partition), [DUE_SK]: str(sortableTime(at)) };
}

/** Each shard's partition of the dispatcher's list, or of a store's failed list. */
export function duePartitions(list: 'DUE', shards: number): string[];
export function duePartitions(list: 'FAILED', storeId: StoreId): string[];
export function duePartitions(list: DueList, shardsOrStore: number | StoreId): string[] {
  if (list === 'DUE') {
    return Array.from({ length: shardsOrStore as number }, (_, shard) => partitionOf(list, shard, undefined));
  }
  return Array.from({ length: FAILED_SHARDS }, (_, shard) =>
    partitionOf(list, shard, shardsOrStore as StoreId),
  );
}

function partitionOf(list: DueList, shard: number, storeId: StoreId | undefined): string {
  if (list === 'DUE') return `${list}#${shard}`;
  if (storeId === undefined) throw new Error('A failed list belongs to a store');
  return scopedKey(storeId, `${list}#${shard}`);
}

export { DUE_PK, DUE_SK };
