// The cold-start yardstick: a trivial handler and the DynamoDB client, built once at init as the functions do.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';

const client = new DynamoDBClient({});

export const handler = async () => ({ statusCode: 200, body: client.config.apiVersion });
