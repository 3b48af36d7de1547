import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import { Pool } from 'undici';
import { sign } from '../processing/signing';
import { countCommands, type CommandCounts } from './plugin';

export interface BaselineConfig {
  tableName: string;
  service: { url: string; apiKey: string; secretKey: string };
  /** The exact create request the plugin sends, for another foreign_id. */
  createBody: (foreignId: string) => string;
}

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: number): AttributeValue => ({ N: String(value) });

/**
 * The least I/O a checkout and a poll need, done by hand with the same clients the plugin uses: the yardstick the
 * handlers are measured against.
 */
export class BaselineIo {
  private readonly client = new DynamoDBClient({});
  readonly commands: CommandCounts = countCommands(this.client);
  private readonly pool: Pool;

  constructor(private readonly config: BaselineConfig) {
    this.pool = new Pool(config.service.url, { connections: 16 });
  }

  /**
   * A conditional PutItem claim, one signed POST /v2/invoices/create, a conditional UpdateItem with the answer.
   * With `indexed`, both writes also carry the sparse index's keys, as the plugin's do for the reconciliation
   * sweep: the difference shows what maintaining that index costs on this store.
   */
  async checkout(foreignId: string, indexed = false): Promise<void> {
    const body = this.config.createBody(foreignId);
    const key = { pk: S(`BASELINE#${foreignId}`), sk: S('BASELINE') };
    const indexKeys = () => ({ gsi1pk: S('OPEN#BASELINE'), gsi1sk: S(String(Date.now()).padStart(15, '0')) });
    await this.client.send(
      new PutItemCommand({
        TableName: this.config.tableName,
        Item: { ...key, data: S(body), version: N(1), ...(indexed ? indexKeys() : {}) },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    const { service } = this.config;
    const response = await this.pool.request({
      method: 'POST',
      path: '/v2/invoices/create',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'x-processing-key': service.apiKey,
        'x-processing-signature': sign(service.secretKey, body),
      },
      body,
    });
    const answer = await response.body.text();
    if (response.statusCode !== 201) throw new Error(`Baseline create answered ${response.statusCode}`);
    const invoice = JSON.stringify((JSON.parse(answer) as { data: unknown }).data);
    await this.client.send(
      new UpdateItemCommand({
        TableName: this.config.tableName,
        Key: key,
        UpdateExpression: `SET #data = :data, version = :version${indexed ? ', gsi1pk = :gsi1pk, gsi1sk = :gsi1sk' : ''}`,
        ConditionExpression: 'version = :expected',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: {
          ':data': S(invoice),
          ':version': N(2),
          ':expected': N(1),
          ...(indexed ? { ':gsi1pk': indexKeys().gsi1pk, ':gsi1sk': indexKeys().gsi1sk } : {}),
        },
      }),
    );
  }

  /** One consistent GetItem of the invoice's item, under the key store/versioned-store.ts gives it. */
  async poll(foreignId: string): Promise<void> {
    const { Item: item } = await this.client.send(
      new GetItemCommand({
        TableName: this.config.tableName,
        Key: { pk: S(`INVOICE#${foreignId}`), sk: S('INVOICE') },
        ConsistentRead: true,
      }),
    );
    if (!item) throw new Error(`Baseline poll found no item for ${foreignId}`);
  }

  async close(): Promise<void> {
    await this.pool.close();
    this.client.destroy();
  }
}
