import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import type { RequestLeases } from '../domain/ports';
import type { StoreId } from '../domain/stores';
import { TABLE_SCHEMA } from './schema';
import { conditionalWrite, itemKey, num, type Table } from './table';

/** Every lease item's partition key starts so: the stack grants the leasing functions these items alone. */
export const LEASE_PARTITION_PREFIX = 'LIMIT#';

/** How long a second's count is kept before DynamoDB's TTL deletes it: only its own second reads it. */
const KEPT_SECONDS = 60;

/**
 * One item per store, second and count, `LIMIT#<store>#<epoch second>` and `#<count>` after the first: each second's
 * writes land on new keys, and a store with a high limit on several. A lease is one conditional ADD.
 */
export class DynamoRequestLeases implements RequestLeases {
  constructor(private readonly table: Table) {}

  take(storeId: StoreId, second: number, count: number, slice: number, limit: number): Promise<boolean> {
    return conditionalWrite(
      this.table,
      new UpdateItemCommand({
        TableName: this.table.name,
        Key: itemKey(`${LEASE_PARTITION_PREFIX}${storeId}#${second}${count > 0 ? `#${count}` : ''}`, 'LIMIT'),
        UpdateExpression: 'ADD admitted :slice SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(admitted) OR admitted < :limit',
        ExpressionAttributeNames: { '#ttl': TABLE_SCHEMA.timeToLive },
        ExpressionAttributeValues: {
          ':slice': num(slice),
          ':limit': num(limit),
          ':ttl': num(second + KEPT_SECONDS),
        },
      }),
    );
  }
}
