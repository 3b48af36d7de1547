import { GetItemCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  TRAVEL_RULE_SETTINGS,
  type StoreId,
  type StoreRecord,
  type StoreRegistry,
  type TokenOwner,
  type TokenScope,
  type TravelRule,
} from '../domain/stores';
import { positionKey, positionOf } from './created-index';
import { CREATED_INDEX } from './schema';
import { conditionalWrite, itemKey, num, str, type Item, type Table } from './table';

const { partitionKey: CREATED_PK, sortKey: CREATED_SK } = CREATED_INDEX;
/** The one partition of the `created` index that lists the stores: a deployment has few, made now and then. */
const STORES_PARTITION = 'STORES';

const storeKey = (storeId: StoreId) => itemKey(`STORE#${storeId}`, 'STORE');
const tokenKey = (hash: string) => itemKey(`TOKEN#${hash}`, 'TOKEN');

/**
 * The store registry in the one table (docs/operations.md, "Stores"): an item per store at `STORE#<id>`, listed
 * by the `created` index under `STORES`, and an item per token at `TOKEN#<sha256 hex>` naming its store and scope.
 * Only conditional single-item writes: a rotation writes its new tokens' items first, then the store item that
 * names them, so a token works only once its store says so.
 */
export class DynamoStoreRegistry implements StoreRegistry {
  constructor(private readonly table: Table) {}

  async get(storeId: StoreId): Promise<StoreRecord | undefined> {
    const { Item: item } = await this.table.client.send(
      new GetItemCommand({ TableName: this.table.name, Key: storeKey(storeId), ConsistentRead: true }),
    );
    return item && storeFromItem(item);
  }

  create(record: StoreRecord): Promise<boolean> {
    return conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: storeItem(record),
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  update(record: StoreRecord): Promise<boolean> {
    return conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: storeItem(record),
        ConditionExpression: 'version = :before',
        ExpressionAttributeValues: { ':before': num(record.version - 1) },
      }),
    );
  }

  async addToken({ hash, storeId, scope }: TokenOwner): Promise<void> {
    const written = await conditionalWrite(
      this.table,
      new PutItemCommand({
        TableName: this.table.name,
        Item: { ...tokenKey(hash), store: str(storeId), scope: str(scope) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    // 256 random bits never meet twice; a digest already there is a bug, never a token to share.
    if (!written) throw new Error('A token digest is already in the registry');
  }

  async tokenOwner(hash: string): Promise<TokenOwner | undefined> {
    const { Item: item } = await this.table.client.send(
      new GetItemCommand({ TableName: this.table.name, Key: tokenKey(hash) }),
    );
    if (!item) return undefined;
    return { hash, storeId: item.store.S ?? '', scope: item.scope.S as TokenScope };
  }

  async list(query: {
    limit: number;
    after?: { createdAt: number; id: StoreId };
  }): Promise<{ records: StoreRecord[]; more: boolean }> {
    const { Items: items = [] } = await this.table.client.send(
      new QueryCommand({
        TableName: this.table.name,
        IndexName: CREATED_INDEX.name,
        KeyConditionExpression: query.after
          ? `${CREATED_PK} = :stores AND ${CREATED_SK} > :after`
          : `${CREATED_PK} = :stores`,
        ExpressionAttributeValues: {
          ':stores': str(STORES_PARTITION),
          ...(query.after && {
            ':after': str(positionKey({ createdAt: query.after.createdAt, foreignId: query.after.id })),
          }),
        },
        ProjectionExpression: CREATED_SK,
        Limit: query.limit + 1,
      }),
    );
    const ids = items.slice(0, query.limit).map((item) => positionOf(item[CREATED_SK].S ?? '').foreignId);
    const records = await Promise.all(ids.map((id) => this.get(id)));
    return {
      records: records.filter((record): record is StoreRecord => record !== undefined),
      more: items.length > query.limit,
    };
  }
}

function storeItem(record: StoreRecord): Item {
  const { previousTokens: previous, unfinished, keysChange } = record;
  return {
    ...storeKey(record.id),
    // An unfinished store is out of the `created` index, so the list never shows it: its finish puts it there.
    ...(!unfinished && {
      [CREATED_PK]: str(STORES_PARTITION),
      [CREATED_SK]: str(positionKey({ createdAt: record.createdAt, foreignId: record.id })),
    }),
    id: str(record.id),
    name: str(record.name),
    status: str(record.status),
    account: str(record.account),
    ...(record.baseUrl !== undefined && { base_url: str(record.baseUrl) }),
    ...(record.webhookUrl !== undefined && { webhook_url: str(record.webhookUrl) }),
    created_at: num(record.createdAt),
    updated_at: num(record.updatedAt),
    version: num(record.version),
    storefront_token_hash: str(record.tokens.storefront),
    admin_token_hash: str(record.tokens.admin),
    ...(previous && {
      previous_storefront_token_hash: str(previous.storefront),
      previous_admin_token_hash: str(previous.admin),
      previous_tokens_expire_at: num(previous.expiresAt),
    }),
    ...(unfinished && {
      unfinished_request: str(unfinished.request),
      unfinished_until: num(unfinished.until),
      unfinished_version: num(unfinished.version),
    }),
    ...(keysChange && {
      keys_change_until: num(keysChange.until),
      keys_change_version: num(keysChange.version),
    }),
    ...(record.previousWebhookSecretExpiresAt !== undefined && {
      previous_webhook_secret_expires_at: num(record.previousWebhookSecretExpiresAt),
    }),
    ...(record.movedFromShared !== undefined && { moved_from_shared: num(record.movedFromShared) }),
    ...(record.travelRule !== undefined && { travel_rule: str(record.travelRule) }),
    ...(record.travelRuleSender !== undefined && { travel_rule_sender: str(record.travelRuleSender) }),
    ...(record.claimLinkDays !== undefined && { claim_link_days: num(record.claimLinkDays) }),
    ...(record.requestsPerSecond !== undefined && { requests_per_second: num(record.requestsPerSecond) }),
  };
}

function storeFromItem(item: Item): StoreRecord {
  const text = (name: string) => item[name]?.S;
  const number = (name: string) => Number(item[name]?.N);
  const previous = text('previous_storefront_token_hash');
  const unfinished = text('unfinished_request');
  return {
    id: text('id') ?? '',
    name: text('name') ?? '',
    status: text('status') === 'disabled' ? 'disabled' : 'active',
    account: text('account') === 'own' ? 'own' : 'shared',
    ...(text('base_url') !== undefined && { baseUrl: text('base_url') }),
    ...(text('webhook_url') !== undefined && { webhookUrl: text('webhook_url') }),
    createdAt: number('created_at'),
    updatedAt: number('updated_at'),
    version: number('version'),
    tokens: { storefront: text('storefront_token_hash') ?? '', admin: text('admin_token_hash') ?? '' },
    ...(previous !== undefined && {
      previousTokens: {
        storefront: previous,
        admin: text('previous_admin_token_hash') ?? '',
        expiresAt: number('previous_tokens_expire_at'),
      },
    }),
    ...(unfinished !== undefined && {
      unfinished: {
        request: unfinished,
        until: number('unfinished_until'),
        version: number('unfinished_version'),
      },
    }),
    ...(item.keys_change_until !== undefined && {
      keysChange: { until: number('keys_change_until'), version: number('keys_change_version') },
    }),
    ...(item.previous_webhook_secret_expires_at !== undefined && {
      previousWebhookSecretExpiresAt: number('previous_webhook_secret_expires_at'),
    }),
    ...(item.moved_from_shared !== undefined && { movedFromShared: number('moved_from_shared') }),
    ...(TRAVEL_RULE_SETTINGS.includes(text('travel_rule') as TravelRule) && {
      travelRule: text('travel_rule') as TravelRule,
    }),
    ...(TRAVEL_RULE_SETTINGS.includes(text('travel_rule_sender') as TravelRule) && {
      travelRuleSender: text('travel_rule_sender') as TravelRule,
    }),
    ...(item.claim_link_days !== undefined && { claimLinkDays: number('claim_link_days') }),
    ...(item.requests_per_second !== undefined && { requestsPerSecond: number('requests_per_second') }),
  };
}
