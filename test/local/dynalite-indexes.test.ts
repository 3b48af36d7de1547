// The local DynamoDB's indexes (local/dynalite-indexes.ts): written after a write answers, while no request is in
// hand, and only where it changes them, yet every query sees every write before it.
import {
  CreateTableCommand,
  DeleteItemCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import dynaliteDb from 'dynalite/db';
import http from 'node:http';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';
import { pendingIndexWrites } from '../../local/dynalite-indexes';
import { CREATED_INDEX, OPEN_ITEMS_INDEX } from '../../store/schema';

const TABLE = 'index-test';
const S = (value: string): AttributeValue => ({ S: value });
const KEY = { pk: S('INVOICE#order-1'), sk: S('INVOICE') };

let table: DynaliteTable;
let client: DynamoDBClient;
let indexPuts: number;

beforeAll(async () => {
  table = await startDynaliteTable(TABLE);
  client = table.client;
  // Counts the entries written, through the store dynalite hands the patched function.
  const update = dynaliteDb.updateIndexes;
  dynaliteDb.updateIndexes = (store, ...rest) =>
    update(
      {
        getIndexDb: (...where) => {
          const indexDb = store.getIndexDb(...where);
          return {
            put: (key, item, callback) => {
              indexPuts++;
              indexDb.put(key, item, callback);
            },
            del: (key, callback) => indexDb.del(key, callback),
          };
        },
      },
      ...rest,
    );
});

afterAll(() => table.close());

beforeEach(() => {
  indexPuts = 0;
});

const open = (due: string) => ({
  [OPEN_ITEMS_INDEX.partitionKey]: S('OPEN#INVOICE'),
  [OPEN_ITEMS_INDEX.sortKey]: S(due),
});
const created = { [CREATED_INDEX.partitionKey]: S('INVOICE#0'), [CREATED_INDEX.sortKey]: S('1#order-1') };

/** Sets an item's `open-items` sort key, moving its entry there. */
const moveDue = (key: Record<string, AttributeValue>, due: string) =>
  client.send(
    new UpdateItemCommand({
      TableName: TABLE,
      Key: key,
      UpdateExpression: `SET ${OPEN_ITEMS_INDEX.sortKey} = :due`,
      ExpressionAttributeValues: { ':due': S(due) },
    }),
  );

async function listed(
  index: typeof OPEN_ITEMS_INDEX | typeof CREATED_INDEX,
  partition: string,
): Promise<string[]> {
  const { Items: items = [] } = await client.send(
    new QueryCommand({
      TableName: TABLE,
      IndexName: index.name,
      KeyConditionExpression: `${index.partitionKey} = :pk`,
      ExpressionAttributeValues: { ':pk': S(partition) },
    }),
  );
  return items.map((item) => item[index.sortKey].S!);
}

test('a query right after each write sees it: entries created, kept, moved, removed and deleted', async () => {
  await client.send(
    new PutItemCommand({ TableName: TABLE, Item: { ...KEY, ...open('due-1'), ...created, data: S('a') } }),
  );
  expect(await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).toEqual(['due-1']);
  expect(await listed(CREATED_INDEX, 'INVOICE#0')).toEqual(['1#order-1']);
  expect(indexPuts).toBe(2);

  // A change of the record alone leaves both entries as they are, as DynamoDB writes no index then.
  indexPuts = 0;
  await client.send(
    new UpdateItemCommand({
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: 'SET #data = :data',
      ExpressionAttributeNames: { '#data': 'data' },
      ExpressionAttributeValues: { ':data': S('b') },
    }),
  );
  expect(await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).toEqual(['due-1']);
  expect(indexPuts).toBe(0);

  // A moved key writes that index's entry only.
  await moveDue(KEY, 'due-2');
  expect(await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).toEqual(['due-2']);
  expect(indexPuts).toBe(1);

  await client.send(
    new UpdateItemCommand({
      TableName: TABLE,
      Key: KEY,
      UpdateExpression: `REMOVE ${OPEN_ITEMS_INDEX.partitionKey}, ${OPEN_ITEMS_INDEX.sortKey}`,
    }),
  );
  expect(await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).toEqual([]);
  expect(await listed(CREATED_INDEX, 'INVOICE#0')).toEqual(['1#order-1']);

  await client.send(new DeleteItemCommand({ TableName: TABLE, Key: KEY }));
  expect(await listed(CREATED_INDEX, 'INVOICE#0')).toEqual([]);
});

/** Resolves once `condition` holds; fails the test if it does not within five seconds. */
async function until(condition: () => boolean): Promise<void> {
  const giveUp = Date.now() + 5_000;
  while (!condition()) {
    if (Date.now() > giveUp) throw new Error('timed out waiting for the condition');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Once the server has written every entry pending: at its next idle moment. */
const entriesWritten = () => until(() => pendingIndexWrites() === 0);

/**
 * A GetItem the server has in hand until it is released: its headers sent, its body only then. Released, it is
 * answered in full (a 400, as it is unsigned), as a client gone mid-body would make dynalite throw.
 */
async function requestInHand(): Promise<{ release: () => Promise<void> }> {
  const callsBefore = table.dynamo.calls();
  const held = http.request(table.dynamo.url, {
    method: 'POST',
    headers: { 'x-amz-target': 'DynamoDB_20120810.GetItem', 'content-type': 'application/x-amz-json-1.0' },
  });
  const answered = new Promise<void>((resolve, reject) => {
    held.on('response', (response) => response.resume().on('end', resolve));
    held.on('error', reject);
  });
  held.flushHeaders();
  await until(() => table.dynamo.calls() > callsBefore);
  return {
    release: () => {
      held.end(JSON.stringify({ TableName: TABLE, Key: KEY }));
      return answered;
    },
  };
}

test('entries wait while a request is in hand, for a request that may read an index or an idle moment', async () => {
  const key = { pk: S('INVOICE#order-held'), sk: S('INVOICE') };
  const held = await requestInHand();
  try {
    await client.send(
      new PutItemCommand({ TableName: TABLE, Item: { ...key, ...open('due-held'), data: S('a') } }),
    );
    await client.send(new GetItemCommand({ TableName: TABLE, Key: key }));
    // Writes and reads of items are served with the entries still to write.
    expect(pendingIndexWrites()).toBe(1);
    expect(indexPuts).toBe(0);
    // A query has them written first.
    expect(await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).toEqual(['due-held']);
    expect(pendingIndexWrites()).toBe(0);
    expect(indexPuts).toBe(1);
    await client.send(new DeleteItemCommand({ TableName: TABLE, Key: key }));
    expect(pendingIndexWrites()).toBe(1);
  } finally {
    await held.release();
  }
  // With nothing in hand the server writes them, no query asking.
  await entriesWritten();
  expect(await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).toEqual([]);
});

test('concurrent writes of many items leave each its own entries', async () => {
  const ids = Array.from({ length: 200 }, (_, i) => `order-${String(i).padStart(3, '0')}`);
  await Promise.all(
    ids.map((id) =>
      client.send(
        new PutItemCommand({
          TableName: TABLE,
          Item: { pk: S(`INVOICE#${id}`), sk: S('INVOICE'), ...open(`due#${id}`), data: S(id) },
        }),
      ),
    ),
  );
  // Each moved, all at once, while the first writes' entries may still be pending.
  await Promise.all(ids.map((id) => moveDue({ pk: S(`INVOICE#${id}`), sk: S('INVOICE') }, `later#${id}`)));
  expect(await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).toEqual(ids.map((id) => `later#${id}`));
});

test('concurrent writes of one item leave exactly its last key in the index', async () => {
  const key = { pk: S('INVOICE#order-raced'), sk: S('INVOICE') };
  await client.send(
    new PutItemCommand({ TableName: TABLE, Item: { ...key, ...open('raced-0'), data: S('a') } }),
  );
  await Promise.all(Array.from({ length: 30 }, (_, i) => moveDue(key, `raced-${i + 1}`)));
  const { Item: item } = await client.send(
    new GetItemCommand({ TableName: TABLE, Key: key, ConsistentRead: true }),
  );
  const raced = (await listed(OPEN_ITEMS_INDEX, 'OPEN#INVOICE')).filter((due) => due.startsWith('raced-'));
  expect(raced).toEqual([item![OPEN_ITEMS_INDEX.sortKey].S]);
});

test('projected attributes follow the item: an INCLUDE index its listed ones, an ALL index every one', async () => {
  const table = 'projection-test';
  const keys = (partition: string) => [{ AttributeName: partition, KeyType: 'HASH' as const }];
  await client.send(
    new CreateTableCommand({
      TableName: table,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: ['pk', 'included', 'all'].map((name) => ({
        AttributeName: name,
        AttributeType: 'S',
      })),
      KeySchema: keys('pk'),
      GlobalSecondaryIndexes: [
        {
          IndexName: 'included',
          KeySchema: keys('included'),
          Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['noteShown'] },
        },
        { IndexName: 'all', KeySchema: keys('all'), Projection: { ProjectionType: 'ALL' } },
      ],
    }),
  );
  const key = { pk: S('item') };
  const entry = async (index: 'included' | 'all') => {
    const { Items: items = [] } = await client.send(
      new QueryCommand({
        TableName: table,
        IndexName: index,
        KeyConditionExpression: '#key = :key',
        ExpressionAttributeNames: { '#key': index },
        ExpressionAttributeValues: { ':key': S('listed') },
      }),
    );
    return items;
  };
  const set = (expression: string, values?: Record<string, AttributeValue>) =>
    client.send(
      new UpdateItemCommand({
        TableName: table,
        Key: key,
        UpdateExpression: expression,
        ExpressionAttributeValues: values,
      }),
    );
  await client.send(
    new PutItemCommand({
      TableName: table,
      Item: { ...key, included: S('listed'), all: S('listed'), noteShown: S('a'), noteHidden: S('a') },
    }),
  );

  // An attribute the INCLUDE index does not project rewrites only the ALL index's entry.
  await entriesWritten();
  indexPuts = 0;
  await set('SET noteHidden = :value', { ':value': S('b') });
  await entriesWritten();
  expect(indexPuts).toBe(1);
  expect((await entry('all'))[0].noteHidden).toEqual(S('b'));
  expect((await entry('included'))[0]).not.toHaveProperty('noteHidden');

  // One it projects rewrites both.
  indexPuts = 0;
  await set('SET noteShown = :value', { ':value': S('b') });
  await entriesWritten();
  expect(indexPuts).toBe(2);
  expect((await entry('included'))[0].noteShown).toEqual(S('b'));

  await set('REMOVE noteHidden');
  expect(await entry('all')).toEqual([expect.not.objectContaining({ noteHidden: expect.anything() })]);

  // An item put over it without the index keys leaves both indexes.
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key, noteShown: S('c') } }));
  expect(await entry('included')).toEqual([]);
  expect(await entry('all')).toEqual([]);
});
