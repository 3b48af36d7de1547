import { GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import type { Delivery, WebhookSubject } from '../domain/webhook-model';
import type { DeliveryStore, DueWork } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { createdKeys } from './created-index';
import { DUE_PK, DUE_SK, dueKeys, duePartitions } from './due-index';
import { recordAttributes, recordFromItem, recordKey } from './record-item';
import { DELIVERIES_DUE_INDEX, TABLE_SCHEMA } from './schema';
import { keyOwner, storeAttribute } from './store-scope';
import { conditionalWrite, num, shardsOf, sortableTime, str, ttlAfter, type Item, type Table } from './table';

const SUBJECTS: Record<string, WebhookSubject> = { INVOICE: 'invoice', REFUND: 'refund' };

/** The work an item's partition key names: a record's outbox, or a delivery, of the store its key is scoped to. */
export function dueWorkOf(partitionKey: string): DueWork {
  const { storeId, key } = keyOwner(partitionKey);
  const [kind, ...rest] = key.split('#');
  const id = rest.join('#');
  return kind === 'WEBHOOK' ? { storeId, delivery: id } : { storeId, record: SUBJECTS[kind], foreignId: id };
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

/** The delivery an item holds; its store is the item's `store` attribute (absent: the default store). */
function deliveryFromItem(item: Item): Delivery {
  const { storeId: _stored, ...delivery } = recordFromItem<Delivery>(item);
  return { ...delivery, storeId: item.store?.S ?? DEFAULT_STORE_ID };
}

/**
 * Webhook deliveries, one item each under `WEBHOOK#<event id>` scoped to its store, written with single-item
 * conditional writes. A pending one is listed in `deliveries-due` at its next attempt (one list for every store, which
 * the dispatcher works through), a failed one under its store's `FAILED`; every one is in its store's `created` index
 * for the admin's list, and expires `retentionDays` after it settled.
 */
export class DynamoDeliveryStore implements DeliveryStore {
  constructor(
    private readonly table: Table,
    private readonly retentionDays: number,
  ) {}

  async listDue(now: number, limit: number): Promise<DueWork[]> {
    const keys = await this.query(
      duePartitions('DUE', shardsOf(this.table).due),
      `${DUE_SK} <= :until`,
      { ':until': str(sortableTime(now)) },
      limit,
    );
    return keys.map(dueWorkOf);
  }

  async listFailed(storeId: StoreId, limit: number): Promise<Delivery[]> {
    const keys = await this.query(duePartitions('FAILED', storeId), undefined, {}, limit);
    const found = await Promise.all(
      keys.map(dueWorkOf).map((work) => ('delivery' in work ? this.get(storeId, work.delivery) : undefined)),
    );
    return found.filter((delivery): delivery is Delivery => delivery?.state === 'failed');
  }

  async get(storeId: StoreId, id: string): Promise<Delivery | undefined> {
    const { Item: item } = await this.table.client.send(
      new GetItemCommand({
        TableName: this.table.name,
        Key: recordKey('WEBHOOK', id, storeId),
        ConsistentRead: true,
      }),
    );
    return item ? deliveryFromItem(item) : undefined;
  }

  create(delivery: Delivery): Promise<boolean> {
    return this.put(delivery, `attribute_not_exists(${TABLE_SCHEMA.partitionKey})`, {});
  }

  update(delivery: Delivery, expectedVersion: number): Promise<boolean> {
    return this.put(delivery, 'version = :expected', { ':expected': num(expectedVersion) });
  }

  /**
   * The whole item, so that the index keys always follow the state; small enough that a put costs no more. The store
   * is in the key and the `store` attribute, not in `data`: the default store's items are as before stores.
   */
  private async put(delivery: Delivery, condition: string, values: Item): Promise<boolean> {
    const { storeId, ...stored } = delivery;
    return conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: {
          ...recordKey('WEBHOOK', delivery.id, storeId),
          ...storeAttribute(storeId),
          ...recordAttributes(stored),
          ...createdKeys('WEBHOOK', { createdAt: delivery.createdAt, foreignId: delivery.id }, storeId),
          ...this.stateKeys(delivery),
        },
        ConditionExpression: condition,
        ...(Object.keys(values).length > 0 ? { ExpressionAttributeValues: values } : {}),
      }),
    );
  }

  private stateKeys({ storeId, id, state, nextAttemptAt, lastAttempt, createdAt }: Delivery): Item {
    if (state === 'pending') return dueKeys('DUE', id, nextAttemptAt, shardsOf(this.table).due);
    const settledAt = lastAttempt?.at ?? createdAt;
    const ttl = { [TABLE_SCHEMA.timeToLive]: num(ttlAfter(settledAt, this.retentionDays)) };
    return state === 'failed' ? { ...dueKeys('FAILED', id, settledAt, storeId), ...ttl } : ttl;
  }

  /** The table keys of up to `limit` items per partition of a list, earliest first over all of them. */
  private async query(
    partitions: string[],
    range: string | undefined,
    values: Item,
    limit: number,
  ): Promise<string[]> {
    const pages = await Promise.all(
      partitions.map(async (partition) => {
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
