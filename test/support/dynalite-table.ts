// dynalite with the plugin's table made, and an SDK client for it: what the store's tests on a table run on.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import {
  createPluginTable,
  LOCAL_CREDENTIALS,
  startLocalDynamo,
  type LocalDynamo,
} from '../../local/dynamodb';
import type { Table } from '../../store/table';

export interface DynaliteTable extends Table {
  dynamo: LocalDynamo;
  /** Destroys the client, then stops dynalite. */
  close(): Promise<void>;
}

export async function startDynaliteTable(name: string): Promise<DynaliteTable> {
  const dynamo = await startLocalDynamo();
  await createPluginTable(dynamo.url, name);
  const client = new DynamoDBClient({
    endpoint: dynamo.url,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
    // dynalite on a busy machine may reset a connection now and then; the SDK's three attempts can all meet one.
    maxAttempts: 6,
  });
  return {
    name,
    client,
    dynamo,
    close: async () => {
      client.destroy();
      await dynamo.close();
    },
  };
}
