// The local DynamoDB's indexes (local/dynalite-indexes.ts): written after a write answers and only where it
// changes them, yet every query sees every write before it.
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
import {
  createPluginTable,
  LOCAL_CREDENTIALS,
  startLocalDynamo,
  type LocalDynamo,
} from '../../local/dynamodb';
import { CREATED_INDEX, OPEN_ITEMS_INDEX } from '../../store/schema';

const TABLE = 'index-test';
const S = (value: string): AttributeValue => ({ S: value });
const KEY = { pk: S('INVOICE#order-1'), sk: S('INVOICE') };

let dynamo: LocalDynamo;
let client: DynamoDBClient;
let indexPuts: number;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  await createPluginTable(dynamo.url, TABLE);
  client = new DynamoDBClient({ endpoint: dynamo.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
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

afterAll(async () => {
  client.destroy();
  await dynamo.close();
});

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
  indexPuts = 0;
  await set('SET noteHidden = :value', { ':value': S('b') });
  expect(indexPuts).toBe(1);
  expect((await entry('all'))[0].noteHidden).toEqual(S('b'));
  expect((await entry('included'))[0]).not.toHaveProperty('noteHidden');

  // One it projects rewrites both.
  indexPuts = 0;
  await set('SET noteShown = :value', { ':value': S('b') });
  expect(indexPuts).toBe(2);
  expect((await entry('included'))[0].noteShown).toEqual(S('b'));

  await set('REMOVE noteHidden');
  expect(await entry('all')).toEqual([expect.not.objectContaining({ noteHidden: expect.anything() })]);

  // An item put over it without the index keys leaves both indexes.
  await client.send(new PutItemCommand({ TableName: table, Item: { ...key, noteShown: S('c') } }));
  expect(await entry('included')).toEqual([]);
  expect(await entry('all')).toEqual([]);
});
