import { DynamoDBClient, ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import type { LocalStack } from '../../local/stack';
import { DynamoDeliveryStore } from '../../store/delivery-store';
import { recordFromItem } from '../../store/record-item';

/** Every item in the plugin's table, read straight from dynalite, to check what was (not) written. */
export async function scanTable(stack: LocalStack): Promise<Array<Record<string, AttributeValue>>> {
  const client = new DynamoDBClient({
    endpoint: stack.dynamo.url,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    const items: Array<Record<string, AttributeValue>> = [];
    let start: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new ScanCommand({ TableName: stack.tableName, ExclusiveStartKey: start }),
      );
      items.push(...(page.Items ?? []));
      start = page.LastEvaluatedKey;
    } while (start);
    return items;
  } finally {
    client.destroy();
  }
}

/** A refund or invoice record as its item holds it, read without a route (GET /refunds refreshes it). */
export async function storedRecord(
  stack: LocalStack,
  kind: 'INVOICE' | 'REFUND',
  foreignId: string,
): Promise<Record<string, any> | undefined> {
  const item = (await scanTable(stack)).find((candidate) => candidate.pk?.S === `${kind}#${foreignId}`);
  return item ? recordFromItem(item) : undefined;
}

/**
 * A default-store webhook delivery that ran out of retries, written straight to the table: for the re-send routes
 * on a stack that sends no webhooks.
 */
export async function addFailedDelivery(stack: LocalStack, id: string, foreignId: string): Promise<void> {
  const client = new DynamoDBClient({
    endpoint: stack.dynamo.url,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  try {
    await new DynamoDeliveryStore({ client, name: stack.tableName }, 30).create({
      id,
      storeId: 'default',
      type: 'invoice.awaiting_payment',
      seq: 1,
      subject: 'invoice',
      foreignId,
      recordCreatedAt: 0,
      body: '{}',
      createdAt: Date.now(),
      state: 'failed',
      attempts: 3,
      retryFrom: Date.now(),
      nextAttemptAt: Date.now(),
      attemptUntil: null,
      lastAttempt: { at: Date.now(), status: 500, error: null },
      deliveredAt: null,
      version: 1,
    });
  } finally {
    client.destroy();
  }
}
