// The one table's schema: the CDK stack, the local stack and the stores all read the names from here.

/** Every attribute the schema declares is a string, except the TTL (epoch seconds). */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLive: 'ttl',
} as const;

/**
 * The sweep's work, sparse and keys-only: open records of every store, sorted by when the sweep is due to look
 * (docs/architecture.md, "The table's items"). `shards` is the default of the stage setting `openShards`.
 */
export const OPEN_ITEMS_INDEX = {
  name: 'open-items',
  partitionKey: 'gsi1pk',
  sortKey: 'gsi1sk',
  shards: 32,
} as const;

/**
 * Every record by creation time, for the lists, with keys set once so that no update writes it (docs/internals.md,
 * "Lists query the `created` index, never scan"). Changing `shards` needs a backfill.
 */
export const CREATED_INDEX = {
  name: 'created',
  partitionKey: 'gsi2pk',
  sortKey: 'gsi2sk',
  shards: 4,
} as const;

/**
 * The webhook dispatcher's work, sparse and keys-only: what is due under `DUE#<shard>`, and failed deliveries under
 * their store's `FAILED#<shard>` (docs/architecture.md, "The table's items"). `shards` is the default of the stage
 * setting `dueShards`, `leastShards` its least (docs/internals.md, "Index shards"); `failedShards` is fixed.
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
