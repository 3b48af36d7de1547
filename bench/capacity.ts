// DynamoDB's on-demand capacity units, computed by its documented rules from the items a client reads and writes:
// dynalite counts no index writes, and the cost table needs them.
import {
  DescribeTableCommand,
  DynamoDBClient,
  GetItemCommand,
  type AttributeValue,
  type GetItemCommandInput,
} from '@aws-sdk/client-dynamodb';
import { itemSize } from '../store/item-size';

type Item = Record<string, AttributeValue>;

export const writeUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));
/** Strongly consistent; an eventually consistent read costs half. */
export const readUnits = (bytes: number) => Math.max(1, Math.ceil(bytes / 4096));

export interface Units {
  readUnits: number;
  /** The table's own write units. */
  writeUnits: number;
  /** Write units of the global secondary indexes. */
  indexWriteUnits: number;
  /** The largest item read or written, in bytes. */
  largestItem: number;
}

const NONE: Units = { readUnits: 0, writeUnits: 0, indexWriteUnits: 0, largestItem: 0 };

interface IndexShape {
  keys: string[];
  /** Attributes an entry holds: the index's and the table's keys, and any projected ones (all: undefined). */
  projected?: string[];
}

const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand']);
const READS = new Set(['GetItemCommand', 'QueryCommand', 'ScanCommand']);

/**
 * Meters every command a client sends. Around each write it reads the item before and after with its own,
 * unmetered client, so it must only watch sequential work; it is for counting runs, never for timed ones.
 */
export class CapacityMeter {
  private units: Units = { ...NONE };
  private readonly reader = new DynamoDBClient({});
  private shape?: Promise<{ tableKeys: string[]; indexes: IndexShape[] }>;
  private on = false;

  constructor(client: DynamoDBClient) {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const name = context.commandName ?? '';
        if (!this.on) return next(args);
        const input = args.input as { TableName: string; Key?: Item; Item?: Item; ConsistentRead?: boolean };
        if (!WRITES.has(name)) {
          const output = await next(args);
          this.countRead(name, input, output.output as { Item?: Item; Items?: Item[] });
          return output;
        }
        const { tableKeys, indexes } = await this.tableShape(input.TableName);
        const key = input.Key ?? pick(input.Item!, tableKeys);
        const before = await this.read(input.TableName, key);
        try {
          return await next(args);
        } finally {
          const after = name === 'DeleteItemCommand' ? undefined : await this.read(input.TableName, key);
          this.countWrite(before, after, tableKeys, indexes);
        }
      },
      { step: 'initialize', name: 'benchCapacityMeter' },
    );
  }

  /** Units of what `work` sends: the meter is on only while it runs. */
  async during(work: () => Promise<unknown>): Promise<Units> {
    this.units = { ...NONE };
    this.on = true;
    try {
      await work();
    } finally {
      this.on = false;
    }
    return this.units;
  }

  close(): void {
    this.reader.destroy();
  }

  private countRead(
    name: string,
    input: { ConsistentRead?: boolean },
    output: { Item?: Item; Items?: Item[] },
  ) {
    if (!READS.has(name)) return;
    const factor = input.ConsistentRead ? 1 : 0.5;
    const items = name === 'GetItemCommand' ? (output.Item ? [output.Item] : []) : (output.Items ?? []);
    const sizes = items.map(itemSize);
    this.units.largestItem = Math.max(this.units.largestItem, ...sizes);
    this.units.readUnits += readUnits(sizes.reduce((sum, size) => sum + size, 0)) * factor;
  }

  /** The larger of the item before and after; per index, a put, a delete, or both when its key moved. */
  private countWrite(
    before: Item | undefined,
    after: Item | undefined,
    tableKeys: string[],
    indexes: IndexShape[],
  ) {
    const largest = Math.max(before ? itemSize(before) : 0, after ? itemSize(after) : 0);
    this.units.largestItem = Math.max(this.units.largestItem, largest);
    this.units.writeUnits += writeUnits(largest);
    for (const index of indexes) {
      const entry = (item: Item | undefined) =>
        item && index.keys.every((key) => item[key] !== undefined)
          ? pick(item, index.projected ? [...index.projected, ...tableKeys] : Object.keys(item))
          : undefined;
      const [old, next] = [entry(before), entry(after)];
      if (old && next && JSON.stringify(old) === JSON.stringify(next)) continue;
      if (old) this.units.indexWriteUnits += writeUnits(itemSize(old));
      if (next) this.units.indexWriteUnits += writeUnits(itemSize(next));
    }
  }

  private async read(tableName: string, key: Item): Promise<Item | undefined> {
    const input: GetItemCommandInput = { TableName: tableName, Key: key, ConsistentRead: true };
    return (await this.reader.send(new GetItemCommand(input))).Item;
  }

  private tableShape(tableName: string) {
    this.shape ??= this.reader
      .send(new DescribeTableCommand({ TableName: tableName }))
      .then(({ Table: table }) => {
        const tableKeys = (table?.KeySchema ?? []).map((key) => key.AttributeName!);
        const indexes = (table?.GlobalSecondaryIndexes ?? []).map((index) => {
          const keys = (index.KeySchema ?? []).map((key) => key.AttributeName!);
          const projection = index.Projection?.ProjectionType;
          return {
            keys,
            projected:
              projection === 'ALL' ? undefined : [...keys, ...(index.Projection?.NonKeyAttributes ?? [])],
          };
        });
        return { tableKeys, indexes };
      });
    return this.shape;
  }
}

function pick(item: Item, names: string[]): Item {
  return Object.fromEntries(
    names.filter((name) => item[name] !== undefined).map((name) => [name, item[name]]),
  );
}
