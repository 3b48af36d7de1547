import { BatchGetItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { CreatedQuery, ListPosition, NewestFirst } from '../domain/ports';
import { mergeNewest, positionKey, positionOf, shardKey } from './created-index';
import { CREATED_INDEX } from './schema';
import { sortableTime, str, type Table } from './table';
import { recordFromItem, recordKey, type RecordKind } from './versioned-store';

const { partitionKey: CREATED_PK, sortKey: CREATED_SK } = CREATED_INDEX;

/** Above every sort key of the index (they start with digits): the top of an unbounded range. */
const TOP = '~';
/** BatchGetItem hands back what it could not read under throttling; each retry waits twice as long. */
const BATCH_GET_ATTEMPTS = 4;
const BATCH_GET_BACKOFF_MS = 50;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Records of one kind, newest first, from the keys-only `created` index: one Query per shard, merged, and then
 * one BatchGetItem for the page's records.
 *
 * Keys-only over projecting the records: a projection holding `data` would copy every status change and sweep
 * mark into the index, a second write per update; keys-only, the index is written once per record. The price is
 * the BatchGetItem, one more round trip per page (measured in the README, "Lists").
 */
export class DynamoRecordList<T extends ListPosition & { version: number }> implements NewestFirst<T> {
  constructor(
    private readonly table: Table,
    private readonly kind: RecordKind,
  ) {}

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
    return { records: await this.read(keys.map((key) => positionOf(key).foreignId)), more };
  }

  private async queryShard(shard: number, low: string, high: string, limit: number): Promise<string[]> {
    const { Items: items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: CREATED_INDEX.name,
        KeyConditionExpression: `${CREATED_PK} = :shard AND ${CREATED_SK} BETWEEN :low AND :high`,
        ExpressionAttributeValues: {
          ':shard': str(shardKey(this.kind, shard)),
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

  /** The records, in the order of `foreignIds`; BatchGetItem answers in any order. */
  private async read(foreignIds: string[]): Promise<T[]> {
    const found = new Map<string, T>();
    let pending = foreignIds.map((foreignId) => recordKey(this.kind, foreignId));
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === BATCH_GET_ATTEMPTS) throw new Error('DynamoDB left part of a list page unread');
      if (attempt > 0) await sleep(BATCH_GET_BACKOFF_MS * 2 ** (attempt - 1));
      const { Responses: responses, UnprocessedKeys: unprocessed } = await this.table.client.send(
        // Eventually consistent, like the index it follows; a record's own GET reads it consistently.
        new BatchGetItemCommand({ RequestItems: { [this.table.name]: { Keys: pending } } }),
      );
      for (const item of responses?.[this.table.name] ?? []) {
        const record = recordFromItem<T>(item);
        found.set(record.foreignId, record);
      }
      pending = unprocessed?.[this.table.name]?.Keys ?? [];
    }
    return foreignIds.flatMap((foreignId) => found.get(foreignId) ?? []);
  }
}
