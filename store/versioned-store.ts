import { GetItemCommand, PutItemCommand, QueryCommand, UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { OpenItems, VersionedStore } from '../domain/ports';
import { OPEN_ITEMS_INDEX, TABLE_SCHEMA } from './schema';
import { isConditionFailure, itemKey, num, str, type Item, type Table } from './table';

const { partitionKey: OPEN_PK, sortKey: OPEN_SK } = OPEN_ITEMS_INDEX;

interface Keyed {
  foreignId: string;
  version: number;
  updatedAt: number;
  sweptAt?: number;
}

/**
 * Records of one kind, one item each, written only with single-item conditional writes. The record lives as
 * JSON in `data`; `version` guards every change, and open records carry the keys of the sparse, keys-only
 * `open-items` index.
 */
export class VersionedDynamoStore<T extends Keyed> implements VersionedStore<T>, OpenItems<T> {
  constructor(
    private readonly table: Table,
    private readonly kind: 'INVOICE' | 'REFUND',
    private readonly isOpen: (record: T) => boolean,
    /** When the sweep is next due to look at an open record: the index's sort key. */
    private readonly dueAt: (record: T) => number = lastTouched,
  ) {}

  async get(foreignId: string): Promise<T | undefined> {
    const { Item: item } = await this.table.client.send(
      new GetItemCommand({ TableName: this.table.name, Key: this.key(foreignId), ConsistentRead: true }),
    );
    return item ? this.fromItem(item) : undefined;
  }

  async create(record: T): Promise<boolean> {
    return this.conditional(
      new PutItemCommand({
        TableName: this.table.name,
        Item: { ...this.key(record.foreignId), ...this.attributes(record), ...this.openKeys(record) },
        ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
      }),
    );
  }

  async update(record: T, expectedVersion: number): Promise<boolean> {
    const open = this.isOpen(record);
    return this.conditional(
      new UpdateItemCommand({
        TableName: this.table.name,
        Key: this.key(record.foreignId),
        UpdateExpression: open
          ? `SET #data = :data, version = :version, ${OPEN_PK} = :openPk, ${OPEN_SK} = :openSk`
          : `SET #data = :data, version = :version REMOVE ${OPEN_PK}, ${OPEN_SK}`,
        ConditionExpression: 'version = :expected',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: {
          ':data': str(JSON.stringify(record)),
          ':version': num(record.version),
          ':expected': num(expectedVersion),
          ...(open
            ? { ':openPk': str(this.openPartition), ':openSk': str(sortableTime(this.dueAt(record))) }
            : {}),
        },
      }),
    );
  }

  async listOpen(limit: number, dueBy = Number.MAX_SAFE_INTEGER): Promise<T[]> {
    const { Items: items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: OPEN_ITEMS_INDEX.name,
        KeyConditionExpression: `${OPEN_PK} = :open AND ${OPEN_SK} <= :due`,
        ExpressionAttributeValues: { ':open': str(this.openPartition), ':due': str(sortableTime(dueBy)) },
        Limit: limit,
      }),
    );
    // The index holds keys only, which keeps its writes small; each record is then read consistently.
    const records: Array<T | undefined> = await Promise.all(
      items.map((item) => this.get(this.foreignIdOf(item))),
    );
    return records.filter((record): record is T => record !== undefined);
  }

  private get openPartition(): string {
    return `OPEN#${this.kind}`;
  }

  private key(foreignId: string): Item {
    return itemKey(`${this.kind}#${foreignId}`, this.kind);
  }

  private foreignIdOf(item: Item): string {
    return (item[TABLE_SCHEMA.partitionKey].S ?? '').slice(this.kind.length + 1);
  }

  private attributes(record: T): Item {
    return { data: str(JSON.stringify(record)), version: num(record.version) };
  }

  private openKeys(record: T): Item {
    return this.isOpen(record)
      ? { [OPEN_PK]: str(this.openPartition), [OPEN_SK]: str(sortableTime(this.dueAt(record))) }
      : {};
  }

  private fromItem(item: Item): T {
    const record = JSON.parse(item.data.S ?? '{}') as T;
    return { ...record, version: Number(item.version.N) };
  }

  private async conditional(command: PutItemCommand | UpdateItemCommand): Promise<boolean> {
    try {
      await this.table.client.send(command as PutItemCommand);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}

/** Without a schedule, the index lists records changed or swept longest ago first. */
function lastTouched(record: Keyed): number {
  return Math.max(record.updatedAt, record.sweptAt ?? 0);
}

/** Milliseconds as a fixed-width string, so that the index sorts oldest first. */
function sortableTime(ms: number): string {
  return String(ms).padStart(15, '0');
}
