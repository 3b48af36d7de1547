import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { TABLE_SCHEMA } from './schema';

/** The one table, as store/schema.ts describes it. */
export interface Table {
  client: DynamoDBClient;
  name: string;
}

export type Item = Record<string, AttributeValue>;

export const str = (value: string): AttributeValue => ({ S: value });
export const num = (value: number): AttributeValue => ({ N: String(value) });

/** An item's primary key. */
export function itemKey(partition: string, sort: string): Item {
  return { [TABLE_SCHEMA.partitionKey]: str(partition), [TABLE_SCHEMA.sortKey]: str(sort) };
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Epoch seconds for DynamoDB's TTL, `days` from `nowMs`. */
export function ttlAfter(nowMs: number, days: number): number {
  return Math.floor(nowMs / 1000) + days * 86_400;
}

/** Milliseconds as a fixed-width string, so that an index sorts by time. */
export function sortableTime(ms: number): string {
  return String(ms).padStart(15, '0');
}
