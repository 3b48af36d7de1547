// The one table's schema: the CDK stack, the local stack and the stores all read the names from here.

/** Every attribute the schema declares is a string, except the TTL (epoch seconds). */
export const TABLE_SCHEMA = {
  partitionKey: 'pk',
  sortKey: 'sk',
  timeToLive: 'ttl',
} as const;

/** Sparse and keys-only: only open records carry its keys, and the sweep reads each record it lists. */
export const OPEN_ITEMS_INDEX = {
  name: 'open-items',
  partitionKey: 'gsi1pk',
  sortKey: 'gsi1sk',
} as const;
