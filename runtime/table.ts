import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DEFAULT_SHARDS, SHARDS_ENV } from '../store/schema';
import type { Table } from '../store/table';
import { awsClientConfig, withoutSdkLogging } from './aws-clients';
import { requireEnv } from './env';

/** One client per container, reused by every invocation; the shard counts are the stage's (lib/settings.ts). */
export const table: Table = {
  client: withoutSdkLogging(new DynamoDBClient(awsClientConfig())),
  name: requireEnv('TABLE_NAME'),
  shards: {
    open: shardsEnv(SHARDS_ENV.open, DEFAULT_SHARDS.open),
    due: shardsEnv(SHARDS_ENV.due, DEFAULT_SHARDS.due),
  },
};

/** A shard count the stack sets from the stage's settings; the local stack and tests may leave it to the default. */
function shardsEnv(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`Environment variable ${name} must be a whole number ≥ 1`);
  return value;
}
