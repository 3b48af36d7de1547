import { PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { BalanceSnapshot } from '../domain/model';
import type { SnapshotStore } from '../domain/ports';
import { TABLE_SCHEMA } from './schema';
import { conditionalWrite, itemKey, num, str, ttlAfter, type Item, type Table } from './table';

const { partitionKey: PK, sortKey: SK } = TABLE_SCHEMA;

const PARTITION = 'BALANCES';
/** One item, apart from the snapshots so that their queries never meet it: when a live read last kept one. */
const LIVE_SLOT = itemKey('BALANCES_LIVE', '-');

export class DynamoSnapshotStore implements SnapshotStore {
  constructor(
    private readonly table: Table,
    private readonly retentionDays: number,
  ) {}

  async put(snapshot: BalanceSnapshot): Promise<void> {
    await this.table.client.send(
      new PutItemCommand({
        TableName: this.table.name,
        Item: {
          ...itemKey(PARTITION, sortKey(snapshot.takenAt)),
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
        Item: { ...LIVE_SLOT, takenAt: num(at) },
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
        ExpressionAttributeValues: { ':pk': str(PARTITION) },
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
        ExpressionAttributeValues: { ':pk': str(PARTITION), ':since': str(sortKey(takenAfter)) },
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
