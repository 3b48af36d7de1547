import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { DELIVERIES_DUE_INDEX } from './schema';
import { scopedKey } from './store-scope';
import { shardOf, sortableTime, str, type Item } from './table';

const { partitionKey: DUE_PK, sortKey: DUE_SK, shards: SHARDS } = DELIVERIES_DUE_INDEX;

/** `DUE`: the deployment's one list of what the dispatcher has to do; `FAILED`: each store's own. */
export type DueList = 'DUE' | 'FAILED';

/**
 * The `deliveries-due` index's keys for an item listed at `at` (ms); `key` picks its shard. A failed delivery is
 * listed in its store's partitions (issue 33: the default store's are those of before stores).
 */
export function dueKeys(list: DueList, key: string, at: number, storeId: StoreId = DEFAULT_STORE_ID): Item {
  return { [DUE_PK]: str(partitionOf(list, shardOf(key, SHARDS), storeId)), [DUE_SK]: str(sortableTime(at)) };
}

/** Each shard's partition of a list; of a store's failed list with `storeId`. */
export function duePartitions(list: DueList, storeId: StoreId = DEFAULT_STORE_ID): string[] {
  return Array.from({ length: SHARDS }, (_, shard) => partitionOf(list, shard, storeId));
}

function partitionOf(list: DueList, shard: number, storeId: StoreId): string {
  return list === 'DUE' ? `${list}#${shard}` : scopedKey(storeId, `${list}#${shard}`);
}

export { DUE_PK, DUE_SK };
