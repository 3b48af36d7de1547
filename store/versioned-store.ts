import {
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { outboxListedAt, type Outbox, type WebhookProgress } from '../domain/webhook-model';
import type { OpenItems, OutboxRead, Owned, VersionedStore } from '../domain/ports';
import type { StoreId } from '../domain/stores';
import { createdKeys } from './created-index';
import { DUE_PK, DUE_SK, dueKeys } from './due-index';
import { OPEN_ITEMS_INDEX, TABLE_SCHEMA } from './schema';
import { recordAttributes, recordFromItem, recordKey, storedData, type RecordKind } from './record-item';
import { keyOwner, storeAttribute } from './store-scope';
import { conditionalWrite, num, shardOf, shardsOf, sortableTime, str, type Item, type Table } from './table';

const { partitionKey: OPEN_PK, sortKey: OPEN_SK } = OPEN_ITEMS_INDEX;
// A reserved word in DynamoDB's expressions.
const DATA = { '#data': 'data' };
/**
 * The dispatcher's progress on a record's events (domain/model.ts, `WebhookProgress`), in short JSON: every status
 * write of the record carries it, and a few bytes can take an item past a write unit.
 */
const PROGRESS = 'sent';

interface StoredProgress {
  t: number;
  p?: number;
  d?: [number, number];
}

function storedProgress({ through, parked, delivered }: WebhookProgress): string {
  const stored: StoredProgress = { t: through };
  if (parked !== undefined) stored.p = parked;
  if (delivered) stored.d = [delivered.seq, delivered.at];
  return JSON.stringify(stored);
}

function progressOf(text: string): WebhookProgress {
  const { t: through, p: parked, d: delivered } = JSON.parse(text) as StoredProgress;
  return {
    through,
    ...(parked !== undefined && { parked }),
    ...(delivered && { delivered: { seq: delivered[0], at: delivered[1] } }),
  };
}

interface Keyed {
  foreignId: string;
  version: number;
  createdAt: number;
  updatedAt: number;
  sweptAt?: number;
  outbox?: Outbox;
}

/**
 * One store's records of one kind (`forStore` makes another's), one item each, written only with single-item
 * conditional writes on `version`; their items and index keys are in docs/architecture.md, "The table's items".
 */
export class VersionedDynamoStore<T extends Keyed> implements VersionedStore<T>, OpenItems<T> {
  constructor(
    private readonly table: Table,
    readonly storeId: StoreId,
    private readonly kind: RecordKind,
    private readonly isOpen: (record: T) => boolean,
    /** When the sweep is next due to look at an open record: the index's sort key. */
    private readonly dueAt: (record: T) => number = lastTouched,
    /** How long after its first event a record's outbox is listed as due (domain/webhooks.ts, `outboxListedAt`). */
    private readonly outboxGraceMs = 0,
  ) {}

  /** The same kind of records, of another store. */
  forStore(storeId: StoreId): VersionedDynamoStore<T> {
    return new VersionedDynamoStore(
      this.table,
      storeId,
      this.kind,
      this.isOpen,
      this.dueAt,
      this.outboxGraceMs,
    );
  }

  // Not async: it would only wrap the read's promise in another, on every poll.
  get(foreignId: string): Promise<T | undefined> {
    return this.readItem(foreignId).then((item) => (item ? recordFromItem<T>(item) : undefined));
  }

  /** The record's item, read consistently. */
  private async readItem(foreignId: string): Promise<Item | undefined> {
    const { Item: item } = await this.table.client.send(
      new GetItemCommand({
        TableName: this.table.name,
        Key: recordKey(this.kind, foreignId, this.storeId),
        ConsistentRead: true,
      }),
    );
    return item;
  }

  async create(record: T): Promise<boolean> {
    return conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: {
          ...recordKey(this.kind, record.foreignId, this.storeId),
          ...storeAttribute(this.storeId),
          ...recordAttributes(record),
          ...this.openKeys(record),
          ...this.outboxKeys(record),
          ...createdKeys(this.kind, record, this.storeId),
        },
        ConditionExpression: `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`,
      }),
    );
  }

  /**
   * With `previous`, the open-items keys are written only when they change; the deliveries-due keys are set
   * whenever the outbox holds events, as `previous` may show keys a drain removed (docs/internals.md, "The webhook
   * outbox").
   */
  async update(record: T, expectedVersion: number, previous?: T): Promise<boolean> {
    const due = this.openSortKey(record);
    const outbox = this.outboxKeys(record);
    const set = ['#data = :data', 'version = :version'];
    const remove: string[] = [];
    const values: Item = {
      ':data': str(storedData(record)),
      ':version': num(record.version),
      ':expected': num(expectedVersion),
    };
    if (previous === undefined || this.openSortKey(previous) !== due) {
      if (due === undefined) remove.push(OPEN_PK, OPEN_SK);
      else {
        set.push(`${OPEN_PK} = :openPk`, `${OPEN_SK} = :openSk`);
        values[':openPk'] = str(this.openPartition(record.foreignId));
        values[':openSk'] = str(due);
      }
    }
    if (outbox[DUE_PK]) {
      set.push(`${DUE_PK} = :duePk`, `${DUE_SK} = :dueSk`);
      values[':duePk'] = outbox[DUE_PK];
      values[':dueSk'] = outbox[DUE_SK];
    }
    return conditionalWrite(
      this.table,
      new UpdateItemCommand({
        TableName: this.table.name,
        Key: recordKey(this.kind, record.foreignId, this.storeId),
        UpdateExpression: `SET ${set.join(', ')}${remove.length > 0 ? ` REMOVE ${remove.join(', ')}` : ''}`,
        ConditionExpression: 'version = :expected',
        ExpressionAttributeNames: DATA,
        ExpressionAttributeValues: values,
      }),
    );
  }

  /** The record, with the dispatcher's progress on its events from the attribute of its own. */
  async readOutbox(foreignId: string): Promise<OutboxRead | undefined> {
    const item = await this.readItem(foreignId);
    if (!item) return undefined;
    const progress = item[PROGRESS]?.S;
    const record = recordFromItem<T>(item) as unknown as OutboxRead['record'];
    return { record, progress: progress ? progressOf(progress) : undefined };
  }

  /**
   * Drops the outbox's events up to `progress.through` and stores `progress` if the version and progress are as
   * read, keeping the version so that a concurrent change still wins (docs/internals.md, "The webhook outbox").
   */
  async drainOutbox({ record, progress: asRead }: OutboxRead, progress: WebhookProgress): Promise<boolean> {
    const pending = (record.outbox?.pending ?? []).filter((event) => event.seq > progress.through);
    const drained = { ...record, outbox: record.outbox && { ...record.outbox, pending } } as unknown as T;
    const outbox = this.outboxKeys(drained);
    return conditionalWrite(
      this.table,
      new UpdateItemCommand({
        TableName: this.table.name,
        Key: recordKey(this.kind, record.foreignId, this.storeId),
        UpdateExpression: [
          'SET #data = :data, #progress = :progress',
          outbox[DUE_PK] ? `, ${DUE_PK} = :duePk, ${DUE_SK} = :dueSk` : ` REMOVE ${DUE_PK}, ${DUE_SK}`,
        ].join(''),
        ConditionExpression: `version = :expected AND ${
          asRead ? '#progress = :asRead' : 'attribute_not_exists(#progress)'
        }`,
        ExpressionAttributeNames: { ...DATA, '#progress': PROGRESS },
        ExpressionAttributeValues: {
          ':data': str(storedData(drained)),
          ':progress': str(storedProgress(progress)),
          ':expected': num(record.version),
          ...(asRead ? { ':asRead': str(storedProgress(asRead)) } : {}),
          ...(outbox[DUE_PK] ? { ':duePk': outbox[DUE_PK], ':dueSk': outbox[DUE_SK] } : {}),
        },
      }),
    );
  }

  async remove(foreignId: string, expectedVersion: number): Promise<boolean> {
    return conditionalWrite(
      this.table,
      new DeleteItemCommand({
        TableName: this.table.name,
        Key: recordKey(this.kind, foreignId, this.storeId),
        ConditionExpression: 'version = :expected',
        ExpressionAttributeValues: { ':expected': num(expectedVersion) },
      }),
    );
  }

  /**
   * Every store's open records of this kind, the longest due first: the index is one queue for all stores, over
   * `openShards` partitions. Each shard gives its first `limit`, so the merge holds the first `limit` of them all.
   */
  async listOpen(limit: number, dueBy = Number.MAX_SAFE_INTEGER): Promise<Array<Owned<T>>> {
    const pages = await Promise.all(
      openPartitions(this.kind, shardsOf(this.table).open).map(async (partition) => {
        const { Items: items = [] } = await this.table.client.send(
          new QueryCommand({
            TableName: this.table.name,
            IndexName: OPEN_ITEMS_INDEX.name,
            KeyConditionExpression: `${OPEN_PK} = :open AND ${OPEN_SK} <= :due`,
            ExpressionAttributeValues: { ':open': str(partition), ':due': str(sortableTime(dueBy)) },
            Limit: limit,
          }),
        );
        return items;
      }),
    );
    const items = pages
      .flat()
      .sort((a, b) => (a[OPEN_SK].S ?? '').localeCompare(b[OPEN_SK].S ?? ''))
      .slice(0, limit);
    // The index holds keys only, which keeps its writes small; each record is then read consistently, by its store's.
    const owned = await Promise.all(
      items.map(async (item) => {
        const { storeId, foreignId } = ownerOf(this.kind, item);
        const record = await this.forStore(storeId).get(foreignId);
        return record && { storeId, record };
      }),
    );
    return owned.filter((found): found is Owned<T> => found !== undefined);
  }

  /** The record's shard of its kind's open list, picked by its key, so that two stores' same foreign_id spread. */
  private openPartition(foreignId: string): string {
    const key = recordKey(this.kind, foreignId, this.storeId)[TABLE_SCHEMA.partitionKey].S ?? '';
    return openPartitionOf(this.kind, shardOf(key, shardsOf(this.table).open));
  }

  private openKeys(record: T): Item {
    const due = this.openSortKey(record);
    return due === undefined
      ? {}
      : { [OPEN_PK]: str(this.openPartition(record.foreignId)), [OPEN_SK]: str(due) };
  }

  /** The record's sort key in the open-items index; undefined when it is not open, so not in the index. */
  private openSortKey(record: T): string | undefined {
    return this.isOpen(record) ? sortableTime(this.dueAt(record)) : undefined;
  }

  private outboxKeys(record: T): Item {
    const listedAt = outboxListedAt(record.outbox, this.outboxGraceMs);
    return listedAt === undefined
      ? {}
      : dueKeys('DUE', `${this.kind}#${record.foreignId}`, listedAt, shardsOf(this.table).due);
  }
}

/** A shard's partition of a kind's open list; shard 0's has no suffix (docs/internals.md, "Index shards"). */
export function openPartitionOf(kind: RecordKind, shard: number): string {
  return shard === 0 ? `OPEN#${kind}` : `OPEN#${kind}#${shard}`;
}

/** Every shard's partition of a kind's open list, which the sweep queries. */
export function openPartitions(kind: RecordKind, shards: number): string[] {
  return Array.from({ length: shards }, (_, shard) => openPartitionOf(kind, shard));
}

/** The store and foreign_id in a record's key, as an index holding keys only returns it. */
export function ownerOf(kind: RecordKind, item: Item): { storeId: StoreId; foreignId: string } {
  const { storeId, key } = keyOwner(item[TABLE_SCHEMA.partitionKey].S ?? '');
  return { storeId, foreignId: key.slice(kind.length + 1) };
}

/** Without a schedule, the index lists records changed or swept longest ago first. */
function lastTouched(record: Keyed): number {
  return Math.max(record.updatedAt, record.sweptAt ?? 0);
}
