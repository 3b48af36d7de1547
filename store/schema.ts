// The one table's schema: the CDK stack, the local stack and the stores all read the names from here.

/** Every attribute the schema declares is a string, except the TTL (epoch seconds). */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLive: 'ttl',
} as const;

/**
 * Sparse and keys-only: only open records carry its keys, and the sweep reads each record it lists. One list per kind
 * for every store, partitioned `OPEN#<KIND>` (shard 0) and `OPEN#<KIND>#<shard>`, sorted by when the sweep is due to
 * look. `shards` is the default of the stage setting `openShards`; the sweep queries every shard.
 */
export const OPEN_ITEMS_INDEX = {
  name: 'open-items',
  partitionKey: 'gsi1pk',
  sortKey: 'gsi1sk',
  shards: 32,
} as const;

/**
 * Every invoice and refund by creation time, for the lists: partition `<KIND>#<shard>`, sort
 * `<created_at ms>#<foreign_id>`. The shard (a hash of the foreign_id) spreads the writes of a busy shop over
 * `shards` partitions instead of one; a page reads every shard and merges. Changing `shards` needs a backfill.
 *
 * Keys-only, and the keys are set once at creation: a status change or a sweep mark writes only the table,
 * never this index. A page then reads its records with one BatchGetItem (README, "Lists", has the figures).
 */
export const CREATED_INDEX = {
  name: 'created',
  partitionKey: 'gsi2pk',
  sortKey: 'gsi2sk',
  shards: 4,
} as const;

/**
 * The webhook dispatcher's work, sparse and keys-only: records whose outbox holds events (due a grace after the
 * first, `WEBHOOK_OUTBOX_GRACE_MS`: the run the stream woke has them till then) and
 * deliveries waiting for an attempt (due at their next attempt), partitioned `DUE#<shard>` and sorted by due time;
 * deliveries that ran out of retries, under each store's `FAILED#<shard>`, for an admin's re-send. A run queries what
 * is due only. `shards` is the default of the stage setting `dueShards`, and its least: deployments before it listed
 * on four. `failedShards` is fixed.
 */
export const DELIVERIES_DUE_INDEX = {
  name: 'deliveries-due',
  partitionKey: 'gsi3pk',
  sortKey: 'gsi3sk',
  shards: 64,
  leastShards: 4,
  failedShards: 4,
} as const;

/** How many partitions the deployment-wide lists take (stage settings `openShards` and `dueShards`). */
export interface IndexShards {
  open: number;
  due: number;
}

export const DEFAULT_SHARDS: IndexShards = {
  open: OPEN_ITEMS_INDEX.shards,
  due: DELIVERIES_DUE_INDEX.shards,
};

/** The functions' environment variables that carry them. */
export const SHARDS_ENV: Record<keyof IndexShards, string> = { open: 'OPEN_SHARDS', due: 'DUE_SHARDS' };

/** Every secondary index, all keys-only: the stack and the local table declare exactly these. */
export const SECONDARY_INDEXES = [OPEN_ITEMS_INDEX, CREATED_INDEX, DELIVERIES_DUE_INDEX] as const;

export type IndexName = (typeof SECONDARY_INDEXES)[number]['name'];
