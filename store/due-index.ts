import { DELIVERIES_DUE_INDEX } from './schema';
import { shardOf, sortableTime, str, type Item } from './table';

const { partitionKey: DUE_PK, sortKey: DUE_SK, shards: SHARDS } = DELIVERIES_DUE_INDEX;

export type DueList = 'DUE' | 'FAILED';

/** The `deliveries-due` index's keys for an item listed at `at` (ms); `key` picks its shard. */
export function dueKeys(list: DueList, key: string, at: number): Item {
  return { [DUE_PK]: str(`${list}#${shardOf(key, SHARDS)}`), [DUE_SK]: str(sortableTime(at)) };
}

/** Each shard's partition of a list. */
export function duePartitions(list: DueList): string[] {
  return Array.from({ length: SHARDS }, (_, shard) => `${list}#${shard}`);
}

export { DUE_PK, DUE_SK };
