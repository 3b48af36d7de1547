import type { ListPosition } from '../domain/ports';
import type { StoreId } from '../domain/stores';
import { CREATED_INDEX } from './schema';
import { scopedKey } from './store-scope';
import { shardOf, sortableTime, str, type Item } from './table';

/**
 * The `created` index's keys (store/schema.ts), from the record's creation time and foreign_id alone: every write
 * that sets them (a record's first; a webhook delivery's every one) sets the same. Each store lists its own
 * partitions.
 */
export function createdKeys(kind: string, record: ListPosition, storeId: StoreId): Item {
  return {
    [CREATED_INDEX.partitionKey]: str(
      shardKey(kind, shardOf(record.foreignId, CREATED_INDEX.shards), storeId),
    ),
    [CREATED_INDEX.sortKey]: str(positionKey(record)),
  };
}

/** A store's partition of the index for one shard of a kind. */
export function shardKey(kind: string, shard: number, storeId: StoreId): string {
  return scopedKey(storeId, `${kind}#${shard}`);
}

/** The index's sort key: creation time, then foreign_id, so that two records made in one millisecond both sort. */
export function positionKey({ createdAt, foreignId }: ListPosition): string {
  return `${sortableTime(createdAt)}#${foreignId}`;
}

export function positionOf(key: string): ListPosition {
  const separator = key.indexOf('#');
  return { createdAt: Number(key.slice(0, separator)), foreignId: key.slice(separator + 1) };
}

/**
 * The first `limit` keys of all shards' pages, newest first, without `excluded` (the key a page continues after,
 * which a key condition can only bound inclusively). Each shard's page must hold `limit + 2` keys unless the shard
 * has no more: then `more` is exact, since a shard holding more puts over `limit` keys in the merge on its own.
 */
export function mergeNewest(
  shardPages: readonly string[][],
  limit: number,
  excluded?: string,
): { keys: string[]; more: boolean } {
  const merged = shardPages
    .flat()
    .filter((key) => key !== excluded)
    .sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
  return { keys: merged.slice(0, limit), more: merged.length > limit };
}
