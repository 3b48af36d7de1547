import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** The one table: partition `pk`, sort `sk`, sparse GSI `open-items` over `gsi1pk`/`gsi1sk`, TTL on `ttl`. */
export interface Table {
  client: DynamoDBClient;
  name: string;
}

export const OPEN_ITEMS_INDEX = 'open-items';
export type Item = Record<string, AttributeValue>;

export const str = (value: string): AttributeValue => ({ S: value });
export const num = (value: number): AttributeValue => ({ N: String(value) });

export function isConditionFailure(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}

/** Epoch seconds for DynamoDB's TTL, `days` from `nowMs`. */
export function ttlAfter(nowMs: number, days: number): number {
  return Math.floor(nowMs / 1000) + days * 86_400;
}
