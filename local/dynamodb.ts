import { CreateTableCommand, DynamoDBClient, type KeySchemaElement } from '@aws-sdk/client-dynamodb';
import type { Server } from 'node:http';
import dynalite from 'dynalite';
import dynaliteDb from 'dynalite/db';
import { itemSize } from '../store/item-size';
import { SECONDARY_INDEXES, TABLE_SCHEMA } from '../store/schema';
import { flushIndexWrites, pendingIndexWrites, writeIndexEntriesAfterAnswers } from './dynalite-indexes';
import { listen, type Listening } from './listen';

export interface LocalDynamo extends Listening {
  /** DynamoDB API calls served so far. */
  calls(): number;
  /** The HTTP server that answers them: the soak puts its faults in front of it (soak/fault-proxy.ts). */
  server: Server;
}

/** An in-process DynamoDB-compatible server (dynalite, in memory) that the real SDK reaches over HTTP. */
export async function startLocalDynamo(port = 0): Promise<LocalDynamo> {
  writeIndexEntriesAfterAnswers();
  sizeItemsLikeDynamo();
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  let calls = 0;
  // Index entries are written while no request waits for the server, as DynamoDB writes them on none of its
  // callers' time; a request that may read an index has them written first.
  let inHand = 0;
  const flushIfIdle = () => {
    if (inHand === 0) flushIndexWrites();
  };
  server.on('request', (request, response) => {
    calls++;
    inHand++;
    // dynalite's own listener has only started reading the body: nothing of this request is served yet.
    if (!readsNoIndex(request.headers['x-amz-target']) || pendingIndexWrites() >= MAX_PENDING_INDEX_WRITES) {
      flushIndexWrites();
    }
    // Once the answer is sent, or its client gone: a request queued behind another on a connection that closes never
    // has its response closed, only its socket. The immediate lets requests already arrived be read first.
    const { socket } = request;
    const done = () => {
      response.off('close', done);
      socket.off('close', done);
      inHand--;
      if (inHand === 0) setImmediate(flushIfIdle);
    };
    response.once('close', done);
    socket.once('close', done);
  });
  const listening = await listen(server, port);
  return {
    ...listening,
    calls: () => calls,
    server,
    close: () => {
      flushIndexWrites();
      return listening.close();
    },
  };
}

/**
 * Has dynalite check writes against the 400 KB limit by DynamoDB's rules (UTF-8 bytes), as AWS refuses them with
 * ValidationException; its own size counts UTF-16 code units, which lets a write of 4-byte characters through.
 */
function sizeItemsLikeDynamo(): void {
  dynaliteDb.itemSize = itemSize as (item: object) => number;
}

/** Operations on items by their primary key: none reads an index, so none waits for the index writes pending. */
const ITEM_OPERATIONS = new Set([
  'GetItem',
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchGetItem',
  'BatchWriteItem',
  'TransactGetItems',
  'TransactWriteItems',
]);

/** A server never idle meanwhile still writes its index entries, about this many at a time. */
const MAX_PENDING_INDEX_WRITES = 1_000;

/** From the request's `X-Amz-Target`, e.g. `DynamoDB_20120810.GetItem`. */
function readsNoIndex(target: string | string[] | undefined): boolean {
  return typeof target === 'string' && ITEM_OPERATIONS.has(target.slice(target.indexOf('.') + 1));
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
