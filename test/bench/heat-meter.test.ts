// The wire meter in front of dynalite prices a known put, update and query by DynamoDB's rules, on the right keys.
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { startHeatMeter, type HeatMeter } from '../../bench/heat-meter';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import { itemSize } from '../../store/item-size';
import { CREATED_INDEX, OPEN_ITEMS_INDEX } from '../../store/schema';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';

const TABLE = 'heat-meter';
let table: DynaliteTable;
let meter: HeatMeter;
let client: DynamoDBClient;

beforeAll(async () => {
  table = await startDynaliteTable(TABLE);
  meter = await startHeatMeter();
  meter.forwardTo(table.dynamo.url);
  client = new DynamoDBClient({ endpoint: meter.url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
}, 60_000);
afterAll(async () => {
  client.destroy();
  await meter.close();
  await table.close();
});

const S = (value: string): AttributeValue => ({ S: value });
/** An item of `bytes` bytes as DynamoDB counts them, open and listed. */
function item(id: string, bytes: number, due = '001'): Record<string, AttributeValue> {
  const keys = {
    pk: S(`INVOICE#${id}`),
    sk: S('INVOICE'),
    [OPEN_ITEMS_INDEX.partitionKey]: S('OPEN#INVOICE'),
    [OPEN_ITEMS_INDEX.sortKey]: S(due),
    [CREATED_INDEX.partitionKey]: S('INVOICE#2'),
    [CREATED_INDEX.sortKey]: S(`1#${id}`),
  };
  const rest = bytes - itemSize({ ...keys, data: S('') });
  // Two-byte characters: sizes are UTF-8 bytes, not characters.
  return { ...keys, data: S('é'.repeat(Math.floor(rest / 2)) + 'x'.repeat(rest % 2)) };
}

/** Units on each `place|key` the meter saw while `work` ran. */
async function unitsOf(work: () => Promise<unknown>): Promise<Record<string, [number, number]>> {
  meter.reset();
  await work();
  return Object.fromEntries(
    meter
      .units()
      .map(({ place, key, readUnits, writeUnits }) => [`${place}|${key}`, [readUnits, writeUnits]]),
  );
}

test('a put of a 1.5 KB item: 2 WCU on its key, and a 1 WCU entry on each index it is listed in', async () => {
  const put = item('put', 1_536);
  expect(itemSize(put)).toBe(1_536);
  expect(await unitsOf(() => client.send(new PutItemCommand({ TableName: TABLE, Item: put })))).toEqual({
    'table|INVOICE#put': [0, 2],
    'open-items|OPEN#INVOICE': [0, 1],
    'created|INVOICE#2': [0, 1],
  });
});

test('an update that moves an index key: a delete and a put on that index; the larger image prices the table', async () => {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: item('moved', 900) }));
  const units = await unitsOf(() =>
    client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: { pk: S('INVOICE#moved'), sk: S('INVOICE') },
        UpdateExpression: 'SET #data = :data, gsi1sk = :due',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: { ':data': S('x'.repeat(2_100)), ':due': S('002') },
      }),
    ),
  );
  // Over 2 KB after the update: 3 WCU. The created index's keys did not change: no write there.
  expect(units).toEqual({ 'table|INVOICE#moved': [0, 3], 'open-items|OPEN#INVOICE': [0, 2] });
});

test('an update that leaves the index keys alone, and one that fails its condition, write the table only', async () => {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: item('kept', 500) }));
  const update = (condition: string) =>
    client
      .send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: { pk: S('INVOICE#kept'), sk: S('INVOICE') },
          UpdateExpression: 'SET version = :one',
          ConditionExpression: condition,
          ExpressionAttributeValues: { ':one': { N: '1' } },
        }),
      )
      .catch((error: Error) => error.name);
  expect(await unitsOf(() => update('attribute_not_exists(version)'))).toEqual({
    'table|INVOICE#kept': [0, 1],
  });
  let failed: unknown;
  expect(await unitsOf(async () => (failed = await update('attribute_not_exists(version)')))).toEqual({
    'table|INVOICE#kept': [0, 1],
  });
  expect(failed).toBe('ConditionalCheckFailedException');
});

test('reads: 4 KB units, half when eventually consistent; a query sums its items on the partition it names', async () => {
  await client.send(new PutItemCommand({ TableName: TABLE, Item: item('big', 5_000) }));
  const units = await unitsOf(async () => {
    await client.send(
      new GetItemCommand({ TableName: TABLE, Key: { pk: S('INVOICE#big'), sk: S('INVOICE') } }),
    );
    await client.send(
      new GetItemCommand({
        TableName: TABLE,
        Key: { pk: S('INVOICE#big'), sk: S('INVOICE') },
        ConsistentRead: true,
      }),
    );
    const { Items: listed = [] } = await client.send(
      new QueryCommand({
        TableName: TABLE,
        IndexName: OPEN_ITEMS_INDEX.name,
        KeyConditionExpression: '#pk = :open',
        ExpressionAttributeNames: { '#pk': OPEN_ITEMS_INDEX.partitionKey },
        ExpressionAttributeValues: { ':open': S('OPEN#INVOICE') },
      }),
    );
    // Keys only: the four open items listed, in well under 4 KB.
    expect(listed).toHaveLength(4);
  });
  expect(units).toEqual({ 'table|INVOICE#big': [1 + 2, 0], 'open-items|OPEN#INVOICE': [0.5, 0] });
});
