import {
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  UpdateItemCommand,
  type AttributeValue,
} from '@aws-sdk/client-dynamodb';
import http from 'node:http';
import { sign } from '../processing/signing';
import { awsClientConfig, withoutSdkLogging } from '../runtime/aws-clients';
import { CREATED_INDEX, OPEN_ITEMS_INDEX } from '../store/schema';
import { sortableTime } from '../store/table';
import { countCommands, type CommandCounts } from './plugin';

export interface BaselineConfig {
  tableName: string;
  service: { url: string; apiKey: string; secretKey: string };
  /** The exact create request the plugin sends, for another foreign_id. */
  createBody: (foreignId: string) => string;
  /** Lengths of what the plugin's claim and answer write of a record, for the `sameItem` shape. */
  recordSizes: { claimed: number; sent: number };
}

/**
 * The least I/O through the plugin's client setup; the same through the SDK's default client; with the sweep's
 * index kept one of two ways; or as the plugin's I/O, items as large.
 */
export type Shape = 'least' | 'sdkDefaults' | 'indexed' | 'indexKept' | 'sameItem';

const S = (value: string): AttributeValue => ({ S: value });
const N = (value: number): AttributeValue => ({ N: String(value) });

/**
 * The least I/O a checkout and a poll need, done by hand with the clients the plugin uses, set up alike (the SDK's
 * DynamoDB client as runtime/aws-clients.ts builds it, and node's keep-alive agent for the service, as
 * processing/http-exchange.ts): the yardstick the handlers are measured against, so that a ratio is the plugin's
 * own code. The same I/O through the SDK's default client (`sdkDefaults`) shows what that setup saves.
 */
export class BaselineIo {
  readonly client = withoutSdkLogging(new DynamoDBClient(awsClientConfig()));
  /** Counted from construction: the client fixes each command's middleware at its first send. */
  readonly commands: CommandCounts = countCommands(this.client);
  /** Counted, and metered by the bench, as every client it times: each carries the bench's middleware alike. */
  readonly sdkDefaults = new DynamoDBClient({});
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 16, scheduling: 'lifo' });

  constructor(private readonly config: BaselineConfig) {
    countCommands(this.sdkDefaults);
  }

  /**
   * A conditional PutItem claim, one signed POST /v2/invoices/create, a conditional UpdateItem with the answer.
   * The other shapes split the plugin's overhead. `indexKept`: the writes also keep the table's indexes as the
   * plugin's do: the claim writes its `created` entry and its `open-items` entry, due when the answered invoice
   * first is, and the answer leaves both where they are. `indexed`: as the plugin did before, the claim's
   * `open-items` entry is due later and the answer moves it. `sameItem`: as `indexKept`, with each write padded to
   * the size of the plugin's record at that step, so that what is left is the plugin's code. `sdkDefaults`: the
   * least I/O through the SDK's default client.
   */
  async checkout(foreignId: string, shape: Shape = 'least'): Promise<void> {
    const pad = (data: string, size: number) => (shape === 'sameItem' ? data.padEnd(size) : data);
    const client = shape === 'sdkDefaults' ? this.sdkDefaults : this.client;
    const body = this.config.createBody(foreignId);
    const key = { pk: S(`BASELINE#${foreignId}`), sk: S('BASELINE') };
    const open = OPEN_ITEMS_INDEX;
    const dueIn = (ms: number) => ({
      [open.partitionKey]: S('OPEN#BASELINE'),
      [open.sortKey]: S(sortableTime(Date.now() + ms)),
    });
    const created = {
      [CREATED_INDEX.partitionKey]: S('BASELINE#0'),
      [CREATED_INDEX.sortKey]: S(`${sortableTime(Date.now())}#${foreignId}`),
    };
    const claimIndex =
      shape === 'least' || shape === 'sdkDefaults'
        ? {}
        : { ...created, ...dueIn(shape === 'indexed' ? 300_000 : 60_000) };
    const answerIndex = shape === 'indexed' ? dueIn(60_000) : {};
    await client.send(
      new PutItemCommand({
        TableName: this.config.tableName,
        Item: { ...key, data: S(pad(body, this.config.recordSizes.claimed)), version: N(1), ...claimIndex },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    const answer = await createSigned(this.agent, this.config.service, body);
    const invoice = JSON.stringify((JSON.parse(answer) as { data: unknown }).data);
    const sets = Object.keys(answerIndex).map((name) => `, ${name} = :${name}`);
    await client.send(
      new UpdateItemCommand({
        TableName: this.config.tableName,
        Key: key,
        UpdateExpression: `SET #data = :data, version = :version${sets.join('')}`,
        ConditionExpression: 'version = :expected',
        ExpressionAttributeNames: { '#data': 'data' },
        ExpressionAttributeValues: {
          ':data': S(pad(invoice, this.config.recordSizes.sent)),
          ':version': N(2),
          ':expected': N(1),
          ...Object.fromEntries(Object.entries(answerIndex).map(([name, value]) => [`:${name}`, value])),
        },
      }),
    );
  }

  /** One consistent GetItem of the invoice's item, under the key store/versioned-store.ts gives it. */
  async poll(foreignId: string, shape: 'least' | 'sdkDefaults' = 'least'): Promise<void> {
    const client = shape === 'sdkDefaults' ? this.sdkDefaults : this.client;
    const { Item: item } = await client.send(
      new GetItemCommand({
        TableName: this.config.tableName,
        Key: { pk: S(`INVOICE#${foreignId}`), sk: S('INVOICE') },
        ConsistentRead: true,
      }),
    );
    if (!item) throw new Error(`Baseline poll found no item for ${foreignId}`);
  }

  async close(): Promise<void> {
    this.agent.destroy();
    this.client.destroy();
    this.sdkDefaults.destroy();
  }
}

/**
 * One signed POST /v2/invoices/create over `agent`, its answer read whole; anything but 201 is an error, so that a
 * failing call is never timed as a fast one.
 */
export function createSigned(
  agent: http.Agent,
  { url, apiKey, secretKey }: BaselineConfig['service'],
  body: string,
): Promise<string> {
  const origin = new URL(url);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        hostname: origin.hostname,
        port: origin.port,
        method: 'POST',
        path: '/v2/invoices/create',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'x-processing-key': apiKey,
          'x-processing-signature': sign(secretKey, body),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          response.statusCode === 201
            ? resolve(Buffer.concat(chunks).toString('utf8'))
            : reject(new Error(`The create by hand answered ${response.statusCode}`)),
        );
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}
