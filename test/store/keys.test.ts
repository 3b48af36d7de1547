// Isolation held by the compiler: no key or store-scoped repository can be made without naming its store, and every
// store-scoped key, of every kind, is the default store's key behind one prefix function (store/store-scope.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import type { InvoiceRecord } from '../../domain/model';
import type { Delivery } from '../../domain/webhook-model';
import type { KeySource } from '../../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../../domain/stores';
import { customerSecretIssuer } from '../../secrets/customer-secrets';
import { createdKeys, shardKey } from '../../store/created-index';
import { DynamoDeliveryStore } from '../../store/delivery-store';
import { dueKeys, duePartitions } from '../../store/due-index';
import { recordKey } from '../../store/record-item';
import { DynamoRecordList } from '../../store/record-list';
import { CREATED_INDEX, DELIVERIES_DUE_INDEX, TABLE_SCHEMA } from '../../store/schema';
import { DynamoSnapshotStore, snapshotKeys } from '../../store/snapshot-store';
import { keyOwner, scopedKey, storePrefix } from '../../store/store-scope';
import type { Item, Table } from '../../store/table';
import { VersionedDynamoStore } from '../../store/versioned-store';

const ROOT = path.resolve(__dirname, '../..');
const STORE = 'shop-k';
const position = { createdAt: 1_700_000_000_000, foreignId: 'order-1' };

/**
 * Never run: each call leaves out its store, and tsc (`npm run typecheck` covers test/) fails on any that compiles.
 * The test below also compiles this file without the directives and expects each line to fail for that reason.
 */
export function unscopedCalls(table: Table, keys: KeySource): unknown[] {
  return [
    // @ts-expect-error a key needs its store
    scopedKey('INVOICE#order-1'),
    // @ts-expect-error a record's key needs its store
    recordKey('INVOICE', 'order-1'),
    // @ts-expect-error the created index's keys need their store
    createdKeys('INVOICE', position),
    // @ts-expect-error a created partition needs its store
    shardKey('INVOICE', 0),
    // @ts-expect-error a failed delivery is listed in its store's partitions
    dueKeys('FAILED', 'evt_1', 1),
    // @ts-expect-error a store's failed list needs the store
    duePartitions('FAILED'),
    // @ts-expect-error a snapshot partition needs its store
    snapshotKeys(),
    // @ts-expect-error records are kept per store
    new VersionedDynamoStore<InvoiceRecord>(table, 'INVOICE', () => true),
    // @ts-expect-error a list reads one store's partitions
    new DynamoRecordList<InvoiceRecord>(table, 'INVOICE'),
    // @ts-expect-error snapshots are kept per store
    new DynamoSnapshotStore(table, 90),
    // @ts-expect-error a client secret names its store
    customerSecretIssuer(keys),
  ];
}

test('each call that leaves out its store fails to compile, for that reason alone', () => {
  const file = path.join(__dirname, 'keys.test.ts');
  const text = fs.readFileSync(file, 'utf8');
  const lines = text.split('\n');
  const expected = lines.flatMap((line, at) =>
    line.trim().startsWith('// @ts-expect-error') ? [at + 2] : [],
  );
  expect(expected).toHaveLength(11);
  // The same file with each directive blanked, so that the line numbers stay: each line after one must fail.
  const bare = lines.map((line) => (line.trim().startsWith('// @ts-expect-error') ? '' : line)).join('\n');
  const { config } = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
  const { options } = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile;
  host.readFile = (name) => (path.resolve(name) === file ? bare : readFile(name));
  const program = ts.createProgram([file], options, host);
  const errors = ts
    .getPreEmitDiagnostics(program, program.getSourceFile(file))
    .filter((diagnostic) => diagnostic.file?.fileName && path.resolve(diagnostic.file.fileName) === file)
    .map((diagnostic) => {
      const { line } = ts.getLineAndCharacterOfPosition(
        diagnostic.file as ts.SourceFile,
        diagnostic.start ?? 0,
      );
      return { line: line + 1, message: ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ') };
    });
  expect(errors.map(({ line }) => line).sort((a, b) => a - b)).toEqual(expected);
  // A missing argument; for the failed list, whose overload without a store is the dispatcher's list alone, the list.
  for (const { message } of errors) {
    expect(message).toMatch(
      /^Expected [\d-]+ arguments, but got \d+\.$|^Argument of type '"FAILED"' .* '"DUE"'\.$/,
    );
  }
});

/** A table whose client answers every command with nothing and keeps each command's input. */
function recordingTable(): { table: Table; sent: Array<Record<string, any>> } {
  const sent: Array<Record<string, any>> = [];
  const client = { send: async (command: { input: Record<string, any> }) => (sent.push(command.input), {}) };
  return { table: { client: client as unknown as Table['client'], name: 'keys' }, sent };
}

const KEY_ATTRIBUTES: string[] = [
  TABLE_SCHEMA.partitionKey,
  CREATED_INDEX.partitionKey,
  DELIVERIES_DUE_INDEX.partitionKey,
];

/**
 * Every partition key in the commands, but the open-items index's and the dispatcher's `DUE` list's, which are one
 * for every store: of the items written and read, and those a key condition or an update binds.
 */
function partitionKeys(sent: Array<Record<string, any>>): string[] {
  const global = new Set(duePartitions('DUE', DELIVERIES_DUE_INDEX.shards));
  const found: string[] = [];
  for (const input of sent) {
    for (const item of [input.Key, input.Item] as Array<Item | undefined>) {
      for (const name of KEY_ATTRIBUTES)
        if (item?.[name]?.S !== undefined) found.push(item[name].S as string);
    }
    const expressions = `${input.KeyConditionExpression ?? ''} ${input.UpdateExpression ?? ''}`;
    for (const [, name, placeholder] of expressions.matchAll(/\b(\w+) = (:\w+)/g)) {
      if (KEY_ATTRIBUTES.includes(name)) found.push(input.ExpressionAttributeValues[placeholder].S);
    }
  }
  return found.filter((key) => !global.has(key));
}

/** Every store-scoped repository, made for `storeId`, asked to write and read each kind of item it keeps. */
async function keysWrittenBy(storeId: StoreId): Promise<string[]> {
  const { table, sent } = recordingTable();
  const record = { ...position, version: 1, updatedAt: position.createdAt } as unknown as InvoiceRecord;
  for (const kind of ['INVOICE', 'REFUND'] as const) {
    const store = new VersionedDynamoStore<InvoiceRecord>(table, storeId, kind, () => true);
    await store.create(record);
    await store.get(record.foreignId);
    await store.update({ ...record, version: 2 }, 1);
    await store.drainOutbox({ record, progress: undefined }, { through: 0 });
    await store.remove(record.foreignId, 2);
    await new DynamoRecordList<InvoiceRecord>(table, storeId, kind).listNewest({ limit: 10 });
  }
  const snapshots = new DynamoSnapshotStore(table, storeId, 90);
  await snapshots.put({ takenAt: position.createdAt, source: 'scheduled', balances: [] });
  await snapshots.claimLiveSlot(position.createdAt, 60_000);
  await snapshots.latest();
  await snapshots.since(0, 10);
  const deliveries = new DynamoDeliveryStore(table, 30);
  const delivery = { id: 'evt_1', storeId, createdAt: position.createdAt, version: 1 } as Delivery;
  await deliveries.create({ ...delivery, state: 'pending', nextAttemptAt: position.createdAt });
  await deliveries.update({ ...delivery, state: 'failed', lastAttempt: null }, 1);
  await deliveries.get(storeId, delivery.id);
  await deliveries.listFailed(storeId, 10);
  await new DynamoRecordList<Delivery>(table, storeId, 'WEBHOOK', (found) => found.id).listNewest({
    limit: 10,
  });
  return partitionKeys(sent);
}

test("every kind of key a repository writes or reads is the default store's, behind the store's prefix", async () => {
  const own = await keysWrittenBy(DEFAULT_STORE_ID);
  const other = await keysWrittenBy(STORE);
  const kinds = new Set(own.map((key) => key.split('#')[0]));
  expect([...kinds].sort()).toEqual(['BALANCES', 'BALANCES_LIVE', 'FAILED', 'INVOICE', 'REFUND', 'WEBHOOK']);
  expect(storePrefix(DEFAULT_STORE_ID)).toBe('');
  expect(other).toEqual(own.map((key) => `${storePrefix(STORE)}${key}`));
  for (const key of other)
    expect(keyOwner(key)).toEqual({ storeId: STORE, key: key.slice(storePrefix(STORE).length) });
});

test('each key builder puts the same prefix before the same key', () => {
  const builders: Array<(storeId: StoreId) => string[]> = [
    (storeId) => [scopedKey(storeId, 'ANY#1')],
    (storeId) =>
      (['INVOICE', 'REFUND', 'WEBHOOK'] as const).map(
        (kind) => recordKey(kind, 'order-1', storeId).pk.S as string,
      ),
    (storeId) => [
      createdKeys('INVOICE', position, storeId)[CREATED_INDEX.partitionKey].S as string,
      shardKey('REFUND', 3, storeId),
    ],
    (storeId) => [
      dueKeys('FAILED', 'evt_1', 1, storeId)[DELIVERIES_DUE_INDEX.partitionKey].S as string,
      ...duePartitions('FAILED', storeId),
    ],
    (storeId) => {
      const { partition, liveSlot } = snapshotKeys(storeId);
      return [partition, liveSlot.pk.S as string];
    },
  ];
  for (const build of builders) {
    expect(build(STORE)).toEqual(build(DEFAULT_STORE_ID).map((key) => `${storePrefix(STORE)}${key}`));
  }
});

test("the store scope's mark is written in one source file", () => {
  const sources = (dir: string): string[] =>
    fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        const skipped = ['node_modules', 'test', 'cdk.out', 'coverage', 'out'].includes(entry.name);
        return skipped || entry.name.startsWith('.') ? [] : sources(full);
      }
      return /\.tsx?$/.test(entry.name) ? [full] : [];
    });
  const writing = sources(ROOT)
    .filter((file) => /['"`]S#/.test(fs.readFileSync(file, 'utf8')))
    .map((file) => path.relative(ROOT, file));
  expect(writing).toEqual(['store/store-scope.ts']);
});
