import { CreateTableCommand, DynamoDBClient, type KeySchemaElement } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { SECONDARY_INDEXES, TABLE_SCHEMA } from '../store/schema';
import { flushIndexWrites, writeIndexEntriesAfterAnswers } from './dynalite-indexes';
import { listen, type Listening } from './listen';

export interface LocalDynamo extends Listening {
  /** DynamoDB API calls served so far. */
  calls(): number;
}

/** An in-process DynamoDB-compatible server (dynalite, in memory) that the real SDK reaches over HTTP. */
export async function startLocalDynamo(port = 0): Promise<LocalDynamo> {
  writeIndexEntriesAfterAnswers();
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let calls = 0;
  server.on('request', (_request, response) => {
    calls++;
    // dynalite's own listener has only started reading the body: nothing of this request is served yet.
    flushIndexWrites();
    // After the answer is sent, or its client gone: either way nothing is left for a stack closing after it.
    response.once('close', flushIndexWrites);
  });
  const listening = await listen(server, port);
  return {
    ...listening,
    calls: () => calls,
    close: () => {
      flushIndexWrites();
      return listening.close();
    },
  };
}

/** The table the CDK stack declares (store/schema.ts), with its keys-only secondary indexes. */
export async function createPluginTable(endpoint: string, tableName: string): Promise<void> {
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
  const keys = (partition: string, sort: string): KeySchemaElement[] => [
    { AttributeName: partition, KeyType: 'HASH' },
    { AttributeName: sort, KeyType: 'RANGE' },
  ];
  const strings = [
    TABLE_SCHEMA.partitionKey,
    TABLE_SCHEMA.sortKey,
    ...SECONDARY_INDEXES.flatMap((index) => [index.partitionKey, index.sortKey]),
  ];
  await client.send(
    new CreateTableCommand({
      TableName: tableName,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: strings.map((name) => ({ AttributeName: name, AttributeType: 'S' })),
      KeySchema: keys(TABLE_SCHEMA.partitionKey, TABLE_SCHEMA.sortKey),
      GlobalSecondaryIndexes: SECONDARY_INDEXES.map((index) => ({
        IndexName: index.name,
        KeySchema: keys(index.partitionKey, index.sortKey),
        Projection: { ProjectionType: 'KEYS_ONLY' },
      })),
    }),
  );
  client.destroy();
}

/** Local servers accept any credentials; these keep the SDK from looking for real ones. */
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
