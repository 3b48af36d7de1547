import { DeleteItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { ReceiptStore } from '../domain/ports';
import { isConditionFailure, num, str, ttlAfter, type Table } from './table';

export class DynamoReceiptStore implements ReceiptStore {
  constructor(
    private readonly table: Table,
    private readonly retentionDays: number,
    private readonly now: () => number,
  ) {}

  async claim(receiptId: string): Promise<boolean> {
    try {
      await this.table.client.send(
        new PutItemCommand({
          TableName: this.table.name,
          Item: { ...key(receiptId), ttl: num(ttlAfter(this.now(), this.retentionDays)) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async release(receiptId: string): Promise<void> {
    await this.table.client.send(new DeleteItemCommand({ TableName: this.table.name, Key: key(receiptId) }));
  }
}

function key(receiptId: string) {
  return { pk: str(`CALLBACK#${receiptId}`), sk: str('RECEIPT') };
}
