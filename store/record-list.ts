import { BatchGetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { CreatedQuery, ListPosition, NewestFirst } from '../domain/ports';
import type { StoreId } from '../domain/stores';
import { mergeNewest, positionKey, positionOf, shardKey } from './created-index';
import { CREATED_INDEX } from './schema';
import { sortableTime, str, type Table } from './table';
import { recordFromItem, recordKey, type RecordKind } from './record-item';

const { partitionKey: CREATED_PK, sortKey: CREATED_SK } = CREATED_INDEX;

/** Above every sort key of the index (they start with digits): the top of an unbounded range. */
const TOP = '~';
/**
 * Reads of a page's records: throttling leaves some unread, and a record may not be readable yet. Each retry waits
 * twice as long.
 */
const BATCH_GET_ATTEMPTS = 4;
const BATCH_GET_BACKOFF_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One store's records of one kind, newest first: one Query per shard of the keys-only `created` index, merged, then
 * one BatchGetItem (docs/internals.md, "Lists query the `created` index, never scan").
 */
export class DynamoRecordList<T extends { createdAt: number; version: number }> implements NewestFirst<T> {
  constructor(
    private readonly table: Table,
    private readonly storeId: StoreId,
    private readonly kind: RecordKind,
    /** The id in its key and list position: a record's foreign_id, a delivery's event id. */
    private readonly idOf: (record: T) => string = (record) => (record as unknown as ListPosition).foreignId,
  ) {}

  /** The same list, of another store. */
  forStore(storeId: StoreId): DynamoRecordList<T> {
    return new DynamoRecordList(this.table, storeId, this.kind, this.idOf);
  }

  async listNewest(query: CreatedQuery): Promise<{ records: T[]; more: boolean }> {
    const low = sortableTime(query.createdFrom ?? 0);
    const above = query.after && positionKey(query.after);
    // Both bounds are inclusive in a key condition; no key equals a bare time, so `createdBefore` stays exclusive.
    const high = [
      above ?? TOP,
      query.createdBefore === undefined ? TOP : sortableTime(query.createdBefore),
    ].sort()[0];
    if (high < low) return { records: [], more: false };
    const shards = Array.from({ length: CREATED_INDEX.shards }, (_, shard) => shard);
    const pages = await Promise.all(
      shards.map((shard) => this.queryShard(shard, low, high, query.limit + 2)),
    );
    const { keys, more } = mergeNewest(pages, query.limit, above);
    const records = await this.readUpToUnreadable(keys.map((key) => positionOf(key).foreignId));
    return { records, more: more || records.length < keys.length };
  }

  private async queryShard(shard: number, low: string, high: string, limit: number): Promise<string[]> {
    const { Items: items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: CREATED_INDEX.name,
        KeyConditionExpression: `${CREATED_PK} = :shard AND ${CREATED_SK} BETWEEN :low AND :high`,
        ExpressionAttributeValues: {
          ':shard': str(shardKey(this.kind, shard, this.storeId)),
          ':low': str(low),
          ':high': str(high),
        },
        ProjectionExpression: CREATED_SK,
        ScanIndexForward: false,
        Limit: limit,
      }),
    );
    return items.map((item) => item[CREATED_SK].S ?? '');
  }

  /**
   * The records, in the order of `foreignIds`, up to the first that even a consistent read cannot find, so that the
   * next page starts at it instead of skipping it (docs/internals.md, "Lists: why an opaque cursor").
   */
  private async readUpToUnreadable(foreignIds: string[]): Promise<T[]> {
    const found = new Map<string, T>();
    for (let attempt = 0; attempt < BATCH_GET_ATTEMPTS; attempt++) {
      const unread = foreignIds.filter((foreignId) => !found.has(foreignId));
      if (unread.length === 0) break;
      if (attempt > 0) await sleep(BATCH_GET_BACKOFF_MS * 2 ** (attempt - 1));
      const keys = unread.map((foreignId) => recordKey(this.kind, foreignId, this.storeId));
      const { Responses: responses } = await this.table.client.send(
        // Eventually consistent, like the index it follows, but for a key re-read because it was not found.
        new BatchGetItemCommand({
          RequestItems: { [this.table.name]: { Keys: keys, ConsistentRead: attempt > 0 } },
        }),
      );
      for (const item of responses?.[this.table.name] ?? []) {
        const record = recordFromItem<T>(item);
        found.set(this.idOf(record), record);
      }
    }
    const firstUnread = foreignIds.findIndex((foreignId) => !found.has(foreignId));
    if (firstUnread === 0) throw new Error('The first record of a list page is not readable yet');
    const readable = firstUnread === -1 ? foreignIds : foreignIds.slice(0, firstUnread);
    return readable.flatMap((foreignId) => found.get(foreignId) ?? []);
  }
}
