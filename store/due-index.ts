import { createHash } from 'node:crypto';
import { DELIVERIES_DUE_INDEX } from './schema';
import { sortableTime, str, type Item } from './table';

const { partitionKey: DUE_PK, sortKey: DUE_SK, shards: SHARDS } = DELIVERIES_DUE_INDEX;

export type DueList = 'DUE' | 'FAILED';

/** A stable shard per key, so that a busy shop's work spreads over the index's partitions. */
function shardOf(key: string): number {
  return createHash('sha256').update(key).digest()[0] % SHARDS;
}

/** The `deliveries-due` index's keys for an item listed at `at` (ms); `key` picks its shard. */
export function dueKeys(list: DueList, key: string, at: number): Item {
  return { [DUE_PK]: str(`${list}#${shardOf(key)}`), [DUE_SK]: str(sortableTime(at)) };
}

/** Each shard's partition of a list. */
export function duePartitions(list: DueList): string[] {
  return Array.from({ length: SHARDS }, (_, shard) => `${list}#${shard}`);
}

export { DUE_PK, DUE_SK };
