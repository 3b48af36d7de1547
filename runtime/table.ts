import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Table } from '../store/table';
import { awsClientConfig, withoutSdkLogging } from './aws-clients';
import { requireEnv } from './env';

/** One client per container, reused by every invocation. */
export const table: Table = {
  client: withoutSdkLogging(new DynamoDBClient(awsClientConfig())),
  name: requireEnv('TABLE_NAME'),
};
