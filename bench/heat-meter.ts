// DynamoDB's capacity units on every partition key of the table and of each index, counted at the wire: an HTTP proxy
// between the SDK and dynalite parses each request and answer, and reads items through the public API only.
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  type AttributeValue,
  type KeySchemaElement,
} from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS } from '../local/dynamodb';
import { listen, type Listening } from '../local/listen';
import { itemSize } from '../store/item-size';
import { readUnits, writeUnits } from './capacity';

type Item = Record<string, AttributeValue>;

/** Units on one partition key: of the table (`place` 'table') or of an index (`place` its name). */
export interface KeyUnits {
  place: string;
  key: string;
  readUnits: number;
  writeUnits: number;
}

interface Shape {
  tableKeys: string[];
  partitionKey: string;
  indexes: Array<{ name: string; partitionKey: string; keys: string[]; projected?: string[] }>;
}

const TARGET_PREFIX = 'DynamoDB_20120810.';
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);

export interface HeatMeter extends Listening {
  /** Where the proxy sends what it meters: set it before the first request. */
  forwardTo(url: string): void;
  /** Every key's units so far. */
  units(): KeyUnits[];
  /** Requests by operation (`GetItem`, `Query`, ...) so far. */
  operations(): Record<string, number>;
  reset(): void;
}

/**
 * Starts the metering proxy. Around each write it reads the item before and after (GetItem, ConsistentRead), one write
 * per item at a time, and prices the write by DynamoDB's rules; reads are priced from the items they return.
 */
export async function startHeatMeter(port = 0): Promise<HeatMeter> {
  let target: URL | undefined;
  let reader: DynamoDBClient | undefined;
  let shape: Promise<Shape> | undefined;
  let byKey = new Map<string, KeyUnits>();
  let byOperation: Record<string, number> = {};
  const itemLocks = new Map<string, Promise<void>>();

  const add = (place: string, key: string, read: number, write: number) => {
    const id = `${place}\u0000${key}`;
    const units = byKey.get(id) ?? { place, key, readUnits: 0, writeUnits: 0 };
    units.readUnits += read;
    units.writeUnits += write;
    byKey.set(id, units);
  };

  const tableShape = (tableName: string) => {
    shape ??= reader!.send(new DescribeTableCommand({ TableName: tableName })).then(({ Table: table }) => {
      const keysOf = (schema?: KeySchemaElement[]) => (schema ?? []).map((key) => key.AttributeName!);
      const hashOf = (schema?: KeySchemaElement[]) =>
        (schema ?? []).find((key) => key.KeyType === 'HASH')!.AttributeName!;
      const tableKeys = keysOf(table!.KeySchema);
      return {
        tableKeys,
        partitionKey: hashOf(table!.KeySchema),
        indexes: (table!.GlobalSecondaryIndexes ?? []).map((index) => {
          const keys = keysOf(index.KeySchema);
          const projection = index.Projection?.ProjectionType ?? 'ALL';
          return {
            name: index.IndexName!,
            partitionKey: hashOf(index.KeySchema),
            keys,
            projected:
              projection === 'ALL' ? undefined : [...keys, ...(index.Projection?.NonKeyAttributes ?? [])],
          };
        }),
      };
    });
    return shape;
  };

  const readItem = async (tableName: string, key: Item) =>
    (await reader!.send(new GetItemCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;

  /** Runs `work` once no other write of the same item is in hand. */
  const oneAtATime = async <T>(id: string, work: () => Promise<T>): Promise<T> => {
    const before = itemLocks.get(id) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => (release = resolve));
    const chained = before.then(() => mine);
    itemLocks.set(id, chained);
    await before;
    try {
      return await work();
    } finally {
      release();
      if (itemLocks.get(id) === chained) itemLocks.delete(id);
    }
  };

  const meterWrite = async (
    body: { TableName: string; Key?: Item; Item?: Item },
    operation: string,
    forward: () => Promise<void>,
  ) => {
    const table = await tableShape(body.TableName);
    const key = body.Key ?? pick(body.Item!, table.tableKeys);
    await oneAtATime(JSON.stringify(key), async () => {
      const before = await readItem(body.TableName, key);
      await forward();
      const after = operation === 'DeleteItem' ? undefined : await readItem(body.TableName, key);
      countWrite(table, key, before, after, add);
    });
  };

  const meterRead = async (operation: string, body: ReadRequest, answer: ReadAnswer) => {
    const factor = (consistent?: boolean) => (consistent ? 1 : 0.5);
    if (operation === 'GetItem') {
      const table = await tableShape(body.TableName!);
      const key = body.Key![table.partitionKey].S ?? JSON.stringify(body.Key![table.partitionKey]);
      const size = answer.Item ? itemSize(answer.Item) : 0;
      add('table', key, readUnits(size) * factor(body.ConsistentRead), 0);
    } else if (operation === 'Query') {
      const table = await tableShape(body.TableName!);
      const partitionKey = body.IndexName
        ? table.indexes.find((index) => index.name === body.IndexName)!.partitionKey
        : table.partitionKey;
      const key = queriedPartition(body, partitionKey);
      const size = (answer.Items ?? []).reduce((sum, item) => sum + itemSize(item), 0);
      add(body.IndexName ?? 'table', key, readUnits(size) * factor(body.ConsistentRead), 0);
    } else if (operation === 'BatchGetItem') {
      for (const [tableName, items] of Object.entries(answer.Responses ?? {})) {
        const table = await tableShape(tableName);
        const consistent = body.RequestItems?.[tableName]?.ConsistentRead;
        for (const item of items) {
          const key = item[table.partitionKey].S ?? '';
          add('table', key, readUnits(itemSize(item)) * factor(consistent), 0);
        }
      }
    }
  };

  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const payload = Buffer.concat(chunks);
      const operation = String(request.headers['x-amz-target'] ?? '').replace(TARGET_PREFIX, '');
      byOperation[operation] = (byOperation[operation] ?? 0) + 1;
      const body = JSON.parse(payload.toString('utf8') || '{}') as ReadRequest & { Key?: Item; Item?: Item };
      let answer: { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer };
      const forward = async () => {
        answer = await send(target!, request, payload);
      };
      const metered = WRITES.has(operation)
        ? meterWrite(body as { TableName: string }, operation, forward)
        : forward().then(() =>
            answer.status === 200
              ? meterRead(operation, body, JSON.parse(answer.body.toString('utf8')) as ReadAnswer)
              : undefined,
          );
      metered.then(
        () => {
          response.writeHead(answer.status, answer.headers);
          response.end(answer.body);
        },
        (error: unknown) => {
          response.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
          response.end(JSON.stringify({ __type: 'InternalFailure', message: String(error) }));
        },
      );
    });
  });
  const listening = await listen(server, port);
  return {
    ...listening,
    forwardTo(url: string) {
      target = new URL(url);
      reader = new DynamoDBClient({ endpoint: url, region: 'us-east-1', credentials: LOCAL_CREDENTIALS });
    },
    units: () => [...byKey.values()].map((units) => ({ ...units })),
    operations: () => ({ ...byOperation }),
    reset() {
      byKey = new Map();
      byOperation = {};
    },
    close: async () => {
      reader?.destroy();
      await listening.close();
    },
  };
}

interface ReadRequest {
  TableName?: string;
  IndexName?: string;
  Key?: Item;
  ConsistentRead?: boolean;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
  RequestItems?: Record<string, { ConsistentRead?: boolean }>;
}

interface ReadAnswer {
  Item?: Item;
  Items?: Item[];
  Responses?: Record<string, Item[]>;
}

/** The partition a Query reads: the value its key condition sets the partition key equal to. */
export function queriedPartition(body: ReadRequest, partitionKey: string): string {
  for (const [, name, value] of (body.KeyConditionExpression ?? '').matchAll(/(#?\w+)\s*=\s*(:\w+)/g)) {
    const attribute = name.startsWith('#') ? body.ExpressionAttributeNames?.[name] : name;
    if (attribute === partitionKey) return body.ExpressionAttributeValues?.[value]?.S ?? '';
  }
  throw new Error(`A Query without an equality on ${partitionKey}: ${body.KeyConditionExpression}`);
}

/**
 * The table's write is priced on the larger of the item before and after, failed conditions included. Per index: an
 * entry whose key moved is a delete on the old key and a put on the new; one whose projection alone changed, a put.
 */
export function countWrite(
  table: Shape,
  key: Item,
  before: Item | undefined,
  after: Item | undefined,
  add: (place: string, key: string, read: number, write: number) => void,
): void {
  const largest = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
  add('table', key[table.partitionKey].S ?? '', 0, writeUnits(largest));
  for (const index of table.indexes) {
    const entry = (item: Item | undefined) =>
      item && index.keys.every((name) => item[name] !== undefined)
        ? pick(item, index.projected ? [...index.projected, ...table.tableKeys] : Object.keys(item))
        : undefined;
    const [old, next] = [entry(before), entry(after)];
    if (old && next && JSON.stringify(old) === JSON.stringify(next)) continue;
    const keyOf = (item: Item) => JSON.stringify(index.keys.map((name) => item[name]));
    const partition = (item: Item) => item[index.partitionKey].S ?? '';
    if (old && next && keyOf(old) === keyOf(next)) {
      add(index.name, partition(next), 0, writeUnits(Math.max(itemSize(old), itemSize(next))));
      continue;
    }
    if (old) add(index.name, partition(old), 0, writeUnits(itemSize(old)));
    if (next) add(index.name, partition(next), 0, writeUnits(itemSize(next)));
  }
}

function pick(item: Item, names: string[]): Item {
  return Object.fromEntries(
    names.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]),
  );
}

function send(
  target: URL,
  request: IncomingMessage,
  payload: Buffer,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: request.method,
        path: request.url,
        headers: { ...request.headers, host: target.host, 'content-length': String(payload.length) },
      },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({ status: answer.statusCode ?? 500, headers: answer.headers, body: Buffer.concat(chunks) }),
        );
        answer.on('error', reject);
      },
    );
    upstream.on('error', reject);
    upstream.end(payload);
  });
}
