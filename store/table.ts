import type {
  AttributeValue,
  DeleteItemCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { DEFAULT_SHARDS, TABLE_SCHEMA, type IndexShards } from './schema';

/** The one table, as store/schema.ts describes it. */
export interface Table {
  client: DynamoDBClient;
  name: string;
  /** The deployment's shard counts; the schema's defaults when absent. */
  shards?: IndexShards;
}

export const shardsOf = (table: Table): IndexShards => table.shards ?? DEFAULT_SHARDS;

export type Item = Record<string, AttributeValue>;

export const str = (value: string): AttributeValue => ({ S: value });
export const num = (value: number): AttributeValue => ({ N: String(value) });

/** An item's primary key. */
export function itemKey(partition: string, sort: string): Item {
  return { [TABLE_SCHEMA.partitionKey]: str(partition), [TABLE_SCHEMA.sortKey]: str(sort) };
}

/** Sends a write whose condition may not hold: false when it does not (another write came first), true when written. */
export async function conditionalWrite(
  table: Table,
  command: PutItemCommand | UpdateItemCommand | DeleteItemCommand,
): Promise<boolean> {
  try {
    await table.client.send(command as PutItemCommand);
    return true;
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Epoch seconds for DynamoDB's TTL, `days` from `nowMs`. */
export function ttlAfter(nowMs: number, days: number): number {
  return Math.floor(nowMs / 1000) + days * 86_400;
}

/**
 * A stable shard for `key`, so that a busy shop's writes spread evenly over an index's partitions; a cheap hash, as
 * no reader works a shard out from a key (docs/internals.md, "Index shards").
 */
export function shardOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return ((hash ^ (hash >>> 16)) >>> 0) % shards;
}

/** Milliseconds as a fixed-width string, so that an index sorts by time. */
export function sortableTime(ms: number): string {
  return String(ms).padStart(15, '0');
}
