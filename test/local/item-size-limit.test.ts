// The local DynamoDB refuses an item past 400 KB as AWS does, counting UTF-8 bytes (local/dynamodb.ts): dynalite's
// own count of UTF-16 code units would let 4-byte characters through at nearly twice the limit.
import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { startDynaliteTable, type DynaliteTable } from '../support/dynalite-table';
import { itemSize, MAX_ITEM_BYTES } from '../../store/item-size';

const TABLE = 'size-test';
const S = (value: string): AttributeValue => ({ S: value });
const KEY = { pk: S('INVOICE#order-1'), sk: S('INVOICE') };
/** U+1F600, 4 bytes in UTF-8 and 2 code units in UTF-16. */
const WIDE = '\u{1F600}';

let table: DynaliteTable;
let client: DynamoDBClient;

beforeAll(async () => {
  table = await startDynaliteTable(TABLE);
  client = table.client;
});

afterAll(() => table.close());

/** The key and as many 4-byte characters in `data` as fit under the limit. */
function largestItem(): Record<string, AttributeValue> {
  const overhead = itemSize({ ...KEY, data: S('') });
  return { ...KEY, data: S(WIDE.repeat(Math.floor((MAX_ITEM_BYTES - overhead) / 4))) };
}

it('counts names and UTF-8 values as DynamoDB does', () => {
  expect(itemSize({ ab: S('é'), n: { N: '-0012.3400' }, list: { L: [S('x'), { BOOL: true }] } })).toBe(
    2 + 2 + (1 + 3) + (4 + 3 + 2 + 2),
  );
});

it('takes a put of 4-byte characters just under 400 KB, and refuses one over it with ValidationException', async () => {
  const under = largestItem();
  expect(itemSize(under)).toBeGreaterThan(MAX_ITEM_BYTES - 4);
  expect(itemSize(under)).toBeLessThanOrEqual(MAX_ITEM_BYTES);
  await client.send(new PutItemCommand({ TableName: TABLE, Item: under }));

  const over = { ...under, data: S(under.data.S + WIDE) };
  expect(itemSize(over)).toBeGreaterThan(MAX_ITEM_BYTES);
  // Half the limit in UTF-16 code units: dynalite alone would take it.
  expect(over.data.S!.length).toBeLessThan(MAX_ITEM_BYTES / 1.9);
  await expect(client.send(new PutItemCommand({ TableName: TABLE, Item: over }))).rejects.toMatchObject({
    name: 'ValidationException',
  });
});

it('refuses an update that would grow the item past 400 KB, and leaves the item as it was', async () => {
  const half = WIDE.repeat(60_000);
  await client.send(new PutItemCommand({ TableName: TABLE, Item: { ...KEY, data: S(half) } }));
  await expect(
    client.send(
      new UpdateItemCommand({
        TableName: TABLE,
        Key: KEY,
        UpdateExpression: 'SET more = :more',
        ExpressionAttributeValues: { ':more': S(half) },
      }),
    ),
  ).rejects.toMatchObject({ name: 'ValidationException' });
  const { Item: item } = await client.send(new GetItemCommand({ TableName: TABLE, Key: KEY }));
  expect(item?.more).toBeUndefined();
  expect(item?.data.S).toBe(half);
});
