import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Table } from '../store/table';
import { awsRequestHandler } from './aws-clients';
import { requireEnv } from './env';

/** One client per container, reused by every invocation. */
export const table: Table = {
  client: new DynamoDBClient({ requestHandler: awsRequestHandler }),
  name: requireEnv('TABLE_NAME'),
};
