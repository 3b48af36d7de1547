import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { ReceiptStore } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { TABLE_SCHEMA } from './schema';
import { scopedKey } from './store-scope';
import { conditionalWrite, itemKey, num, str, ttlAfter, type Table } from './table';

/**
 * A receipt is `pending` while its delivery is applied and `done` after. A pending receipt whose lease ran out
 * (the function died mid-way) can be claimed again, so that no crash turns a delivery into a lost one. Each store
 * keeps its own receipts: `forStore` makes another store's.
 */
export class DynamoReceiptStore implements ReceiptStore {
  constructor(
    private readonly table: Table,
    private readonly retentionDays: number,
    private readonly now: () => number,
    private readonly leaseMs = 60_000,
    private readonly storeId: StoreId = DEFAULT_STORE_ID,
  ) {}

  /** The receipts of another store. */
  forStore(storeId: StoreId): DynamoReceiptStore {
    return new DynamoReceiptStore(this.table, this.retentionDays, this.now, this.leaseMs, storeId);
  }

  async claim(receiptId: string): Promise<boolean> {
    const now = this.now();
    return conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: {
          ...this.key(receiptId),
          receipt_state: str('pending'),
          lease_until: num(now + this.leaseMs),
          [TABLE_SCHEMA.timeToLive]: num(ttlAfter(now, this.retentionDays)),
        },
        ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey}) OR (receipt_state = :pending AND lease_until < :now)`,
        ExpressionAttributeValues: { ':pending': str('pending'), ':now': num(now) },
      }),
    );
  }

  async isDone(receiptId: string): Promise<boolean> {
    const { Item } = await this.table.client.send(
      new GetItemCommand({ TableName: this.table.name, Key: this.key(receiptId), ConsistentRead: true }),
    );
    return Item?.receipt_state?.S === 'done';
  }

  async complete(receiptId: string): Promise<void> {
    await this.table.client.send(
      new UpdateItemCommand({
        TableName: this.table.name,
        Key: this.key(receiptId),
        UpdateExpression: 'SET receipt_state = :done REMOVE lease_until',
        ExpressionAttributeValues: { ':done': str('done') },
      }),
    );
  }

  async release(receiptId: string): Promise<void> {
    await this.table.client.send(
      new DeleteItemCommand({ TableName: this.table.name, Key: this.key(receiptId) }),
    );
  }

  private key(receiptId: string) {
    return itemKey(scopedKey(this.storeId, `CALLBACK#${receiptId}`), 'RECEIPT');
  }
}
