import { GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Delivery, WebhookSubject } from '../domain/model';
import type { DeliveryStore, DueWork } from '../domain/ports';
import { createdKeys } from './created-index';
import { DUE_PK, DUE_SK, dueKeys, duePartitions, type DueList } from './due-index';
import { DELIVERIES_DUE_INDEX, TABLE_SCHEMA } from './schema';
import { conditionalWrite, num, sortableTime, str, ttlAfter, type Item, type Table } from './table';
import { recordAttributes, recordFromItem, recordKey } from './record-item';

const SUBJECTS: Record<string, WebhookSubject> = { INVOICE: 'invoice', REFUND: 'refund' };

/** The work an item's partition key names: a record's outbox, or a delivery. */
export function dueWorkOf(key: string): DueWork {
  const [kind, ...rest] = key.split('#');
  const id = rest.join('#');
  return kind === 'WEBHOOK' ? { delivery: id } : { record: SUBJECTS[kind], foreignId: id };
}

interface StreamEvent {
  Records?: Array<{ eventSource?: string; dynamodb?: { Keys?: Record<string, { S?: string }> } }>;
}

/** The records a stream event names (lib/webhook-trigger.ts lets through only writes that left events waiting). */
export function streamWork(event: unknown): DueWork[] {
  const records = (event as StreamEvent | undefined)?.Records ?? [];
  const keys = records
    .filter((record) => record.eventSource === 'aws:dynamodb')
    .map((record) => record.dynamodb?.Keys?.[TABLE_SCHEMA.partitionKey]?.S)
    .filter((key): key is string => key !== undefined);
  return [...new Set(keys)].map(dueWorkOf).filter((work) => 'record' in work && work.record !== undefined);
}

/**
 * Webhook deliveries, one item each under `WEBHOOK#<event id>`, written with single-item conditional writes. A
 * pending one is listed in `deliveries-due` at its next attempt, a failed one under `FAILED`; every one is in the
 * `created` index for the admin's list, and expires `retentionDays` after it settled.
 */
export class DynamoDeliveryStore implements DeliveryStore {
  constructor(
    private readonly table: Table,
    private readonly retentionDays: number,
  ) {}

  async listDue(now: number, limit: number): Promise<DueWork[]> {
    const keys = await this.query('DUE', `${DUE_SK} <= :until`, { ':until': str(sortableTime(now)) }, limit);
    return keys.map(dueWorkOf);
  }

  async listFailed(limit: number): Promise<Delivery[]> {
    const keys = await this.query('FAILED', undefined, {}, limit);
    const found = await Promise.all(keys.map((key) => this.get(key.slice('WEBHOOK#'.length))));
    return found.filter((delivery): delivery is Delivery => delivery?.state === 'failed');
  }

  async get(id: string): Promise<Delivery | undefined> {
    const { Item: item } = await this.table.client.send(
      new GetItemCommand({ TableName: this.table.name, Key: recordKey('WEBHOOK', id), ConsistentRead: true }),
    );
    return item ? recordFromItem<Delivery>(item) : undefined;
  }

  create(delivery: Delivery): Promise<boolean> {
    return this.put(delivery, `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`, {});
  }

  update(delivery: Delivery, expectedVersion: number): Promise<boolean> {
    return this.put(delivery, 'version = :expected', { ':expected': num(expectedVersion) });
  }

  /** The whole item, so that the index keys always follow the state; small enough that a put costs no more. */
  private async put(delivery: Delivery, condition: string, values: Item): Promise<boolean> {
    return conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: {
          ...recordKey('WEBHOOK', delivery.id),
          ...recordAttributes(delivery),
          ...createdKeys('WEBHOOK', { createdAt: delivery.createdAt, foreignId: delivery.id }),
          ...this.stateKeys(delivery),
        },
        ConditionExpression: condition,
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  }

  private stateKeys(delivery: Delivery): Item {
    if (delivery.state === 'pending') return dueKeys('DUE', delivery.id, delivery.nextAttemptAt);
    const settledAt = delivery.lastAttempt?.at ?? delivery.createdAt;
    const ttl = { [TABLE_SCHEMA.timeToLive]: num(ttlAfter(settledAt, this.retentionDays)) };
    return delivery.state === 'failed' ? { ...dueKeys('FAILED', delivery.id, settledAt), ...ttl } : ttl;
  }

  /** The table keys of up to `limit` items per shard of a list, earliest first over all shards. */
  private async query(
    list: DueList,
    range: string | undefined,
    values: Item,
    limit: number,
  ): Promise<string[]> {
    const pages = await Promise.all(
      duePartitions(list).map(async (partition) => {
        const { Items: items = [] } = await this.table.client.send(
          new QueryCommand({
            TableName: this.table.name,
            IndexName: DELIVERIES_DUE_INDEX.name,
            KeyConditionExpression: `${DUE_PK} = :partition${range ? ` AND ${range}` : ''}`,
            ExpressionAttributeValues: { ':partition': str(partition), ...values },
            Limit: limit,
          }),
        );
        return items;
      }),
    );
    return pages
      .flat()
      .sort((a, b) => ((a[DUE_SK].S ?? '') < (b[DUE_SK].S ?? '') ? -1 : 1))
      .slice(0, limit)
      .map((item) => item[TABLE_SCHEMA.partitionKey].S ?? '');
  }
}
