import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { BalanceSnapshot } from '../domain/model';
import type { SnapshotStore } from '../domain/ports';
import type { StoreId } from '../domain/stores';
import { TABLE_SCHEMA } from './schema';
import { scopedKey } from './store-scope';
import { conditionalWrite, itemKey, num, str, ttlAfter, type Item, type Table } from './table';

const { partitionKey: PK, sortKey: SK } = TABLE_SCHEMA;

/**
 * A store's snapshot partition, and the one item apart from it (so that the snapshots' queries never meet it) that
 * says when a live read last kept one.
 */
export function snapshotKeys(storeId: StoreId): { partition: string; liveSlot: Item } {
  return {
    partition: scopedKey(storeId, 'BALANCES'),
    liveSlot: itemKey(scopedKey(storeId, 'BALANCES_LIVE'), '-'),
  };
}

/**
 * Balance snapshots of one processing account: the deployment's, kept as the default store's, or a store's own
 * (`forStore`). A store sharing the deployment's account has none of its own.
 */
export class DynamoSnapshotStore implements SnapshotStore {
  private readonly partition: string;
  private readonly liveSlot: Item;

  constructor(
    private readonly table: Table,
    storeId: StoreId,
    private readonly retentionDays: number,
  ) {
    ({ partition: this.partition, liveSlot: this.liveSlot } = snapshotKeys(storeId));
  }

  /** The snapshots of a store with its own account. */
  forStore(storeId: StoreId): DynamoSnapshotStore {
    return new DynamoSnapshotStore(this.table, storeId, this.retentionDays);
  }

  async put(snapshot: BalanceSnapshot): Promise<void> {
    await this.table.client.send(
      new PutItemCommand({
        TableName: this.table.name,
        Item: {
          ...itemKey(this.partition, sortKey(snapshot.takenAt)),
          data: str(JSON.stringify(snapshot)),
          [TABLE_SCHEMA.timeToLive]: num(ttlAfter(snapshot.takenAt, this.retentionDays)),
        },
      }),
    );
  }

  async claimLiveSlot(at: number, everyMs: number): Promise<boolean> {
    return conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: { ...this.liveSlot, takenAt: num(at) },
        ConditionExpression: `attribute_not_exists(${PK}) OR takenAt <= :cutoff`,
        ExpressionAttributeValues: { ':cutoff': num(at - everyMs) },
      }),
    );
  }

  async latest(): Promise<BalanceSnapshot | undefined> {
    const { Items: items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: `${PK} = :pk`,
        ExpressionAttributeValues: { ':pk': str(this.partition) },
        ScanIndexForward: false,
        Limit: 1,
      }),
    );
    return items[0] && fromItem(items[0]);
  }

  async since(takenAfter: number, limit: number): Promise<BalanceSnapshot[]> {
    const { Items: items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        KeyConditionExpression: `${PK} = :pk AND ${SK} >= :since`,
        ExpressionAttributeValues: { ':pk': str(this.partition), ':since': str(sortKey(takenAfter)) },
        Limit: limit,
      }),
    );
    return items.map(fromItem);
  }
}

function sortKey(takenAt: number): string {
  return String(takenAt).padStart(15, '0');
}

function fromItem(item: Item): BalanceSnapshot {
  return JSON.parse(item.data.S ?? '{}') as BalanceSnapshot;
}
