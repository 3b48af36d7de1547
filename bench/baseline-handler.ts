// The cold-start yardstick: a trivial handler and the DynamoDB client, built once at init as the functions do; each
// call is one GetItem, the least a function that reads the table does.
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient({});
const TableName = process.env.TABLE_NAME;

export const handler = async () => {
  const { Item } = await client.send(
    new GetItemCommand({
      TableName,
      Key: { pk: { S: 'bench-cold' }, sk: { S: 'bench-cold' } },
      ConsistentRead: true,
    }),
  );
  return { statusCode: 200, body: JSON.stringify({ found: Item !== undefined }) };
};
