import { DeleteItemCommand, DynamoDBClient, PutItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { ConflictError, InProgressError } from '../../domain/errors';
import type { InvoiceRecord, RefundRecord } from '../../domain/model';
import type { CreatedQuery } from '../../domain/ports';
import { claim, save, type ClaimTiming } from '../../domain/records';
import { isOpen } from '../../domain/status';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import { createPluginTable, LOCAL_CREDENTIALS, startLocalDynamo } from '../../local/dynamodb';
import { invoiceEvents, withEvents } from '../../domain/webhooks';
import { createdKeys } from '../../store/created-index';
import { DynamoDeliveryStore } from '../../store/delivery-store';
import { DUE_PK, DUE_SK } from '../../store/due-index';
import { DynamoRecordList } from '../../store/record-list';
import { DynamoSnapshotStore } from '../../store/snapshot-store';
import { str, type Table } from '../../store/table';
import { VersionedDynamoStore } from '../../store/versioned-store';
import { motoInstalled, startMoto } from '../support/moto';

// The same contract, run against two DynamoDB implementations: idempotency rests on these conditional writes.
// Races are asserted only where a conditional write is atomic, as on DynamoDB. dynalite serialises writes to one
// item; moto_server serves requests on threads and takes no lock around a conditional write, so two concurrent
// UpdateItems with the same condition can both succeed there (seen in CI: "exactly one owner" got 2). On moto we
// keep every single-request semantics test and skip the races.
const backends = [
  { backend: 'dynalite', available: true, atomicConditionalWrites: true, start: () => startLocalDynamo() },
  {
    backend: 'moto_server',
    available: motoInstalled(),
    atomicConditionalWrites: false,
    start: () => startMoto(),
  },
];

const CONCURRENCY = 20;
const DAY_SECONDS = 86_400;

function invoice(foreignId: string, overrides: Partial<InvoiceRecord> = {}): InvoiceRecord {
  const at = Date.now();
  return {
    foreignId,
    version: 1,
    phase: 'sending',
    request: {
      foreignId,
      amount: '25.50000000',
      currency: 'EUR',
      title: 'Order',
      email: 'customer@example.com',
      urlSuccess: 'https://shop.example/ok',
      urlFailed: 'https://shop.example/failed',
      timer: true,
    },
    attempt: 1,
    claimedAt: at,
    status: null,
    invoice: null,
    payment: null,
    error: null,
    cancelled: false,
    history: [],
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

/** The same order's foreign_id with another request: a conflict unless the first was refused. */
function anotherRequest(foreignId: string): Partial<InvoiceRecord> {
  return { request: { ...invoice(foreignId).request, title: 'Another order' } };
}

function refund(foreignId: string, overrides: Partial<RefundRecord> = {}): RefundRecord {
  const at = Date.now();
  return {
    foreignId,
    version: 1,
    phase: 'sending',
    request: {
      foreignId,
      senderCurrency: 'EUR',
      receivedCurrency: 'BTC',
      senderAmount: '10.00000000',
      address: 'bc1q',
    },
    claimedAt: at,
    status: null,
    withdrawal: null,
    error: null,
    history: [],
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

const sent = (status: string) => ({ phase: 'sent' as const, status: status as InvoiceRecord['status'] });
const ids = (records: Array<{ foreignId: string }>) => records.map((record) => record.foreignId);
/** The foreign_ids the open-items index lists, each of the default store. */
const openIds = (owned: Array<{ storeId: string; record: { foreignId: string } }>) =>
  owned.map(({ storeId, record }) =>
    storeId === 'default' ? record.foreignId : `${storeId}:${record.foreignId}`,
  );

describe.each(backends)('store on $backend', ({ backend, available, atomicConditionalWrites, start }) => {
  if (!available) {
    test.skip(`skipped: ${backend} is not installed here (pip install "moto[server]" to run these)`, () =>
      undefined);
    return;
  }
  /** A concurrency assertion: it holds only where conditional writes are atomic (see `backends`). */
  const race = atomicConditionalWrites ? test : test.skip;

  let server: { url: string; close(): Promise<void> };
  let client: DynamoDBClient;
  let table: Table;
  let invoices: VersionedDynamoStore<InvoiceRecord>;
  let refunds: VersionedDynamoStore<RefundRecord>;

  beforeAll(async () => {
    server = await start();
    client = new DynamoDBClient({
      endpoint: server.url,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
    });
  });
  afterAll(async () => {
    client?.destroy();
    await server?.close();
  });
  // A table per test, so the open-items index and the snapshot partition hold only that test's items.
  beforeEach(async () => {
    const name = `store-${randomUUID()}`;
    await createPluginTable(server.url, name);
    table = { client, name };
    invoices = new VersionedDynamoStore<InvoiceRecord>(table, DEFAULT_STORE_ID, 'INVOICE', isOpen);
    refunds = new VersionedDynamoStore<RefundRecord>(table, DEFAULT_STORE_ID, 'REFUND', isOpen);
  });

  async function scan() {
    return (await client.send(new ScanCommand({ TableName: table.name }))).Items ?? [];
  }

  describe('VersionedDynamoStore', () => {
    test('create-if-absent: the first create wins, a second is refused and changes nothing', async () => {
      expect(await invoices.get('order-1')).toBeUndefined();
      const first = invoice('order-1');
      expect(await invoices.create(first)).toBe(true);
      expect(await invoices.create(invoice('order-1', anotherRequest('order-1')))).toBe(false);
      expect(await invoices.get('order-1')).toEqual(first);
    });

    test('invoices and refunds with the same foreign_id are separate records', async () => {
      expect(await invoices.create(invoice('shared'))).toBe(true);
      expect(await refunds.create(refund('shared'))).toBe(true);
      expect((await refunds.get('shared'))?.request).toEqual(refund('shared').request);
    });

    test('compare-and-set: a stale version is refused, the current version applies', async () => {
      await invoices.create(invoice('order-1'));
      const second = invoice('order-1', { version: 2, ...sent('pending') });
      expect(await invoices.update(second, 1)).toBe(true);
      expect(await invoices.update(invoice('order-1', { version: 2, error: 'stale writer' }), 1)).toBe(false);
      expect(await invoices.get('order-1')).toEqual(second);

      const third = { ...second, version: 3, status: 'confirmed' as const };
      expect(await invoices.update(third, 2)).toBe(true);
      expect(await invoices.get('order-1')).toEqual(third);
    });

    describe("a record's item", () => {
      test('holds the record as JSON in `data`, its version apart, and reads it back whole', async () => {
        const claimed = invoice('order-1');
        await invoices.create(claimed);
        const [item] = await scan();
        const { version, ...rest } = claimed;
        expect(JSON.parse(item.data.S!)).toEqual(rest);
        expect(item.version).toEqual({ N: String(version) });
        expect(await invoices.get('order-1')).toEqual(claimed);

        const answered = invoice('order-1', {
          version: 2,
          ...sent('pending'),
          history: [{ status: 'pending', at: 5, source: 'create' }],
          attempt: 2,
          cancelled: true,
          payment: { currency: 'BTC', amount: '0.00000000' },
        });
        expect(await invoices.update(answered, 1)).toBe(true);
        expect(await invoices.get('order-1')).toEqual(answered);
        const refunded = refund('order-1');
        await refunds.create(refunded);
        expect(await refunds.get('order-1')).toEqual(refunded);
      });
    });

    test('an update of an absent record is refused and does not create it', async () => {
      expect(await invoices.update(invoice('ghost', { version: 2 }), 1)).toBe(false);
      expect(await invoices.get('ghost')).toBeUndefined();
      expect(await scan()).toEqual([]);
    });

    race(`${CONCURRENCY} concurrent creates of one key: exactly one wins`, async () => {
      const results = await Promise.all(
        Array.from({ length: CONCURRENCY }, (_, i) => invoices.create(invoice('race', { error: `r${i}` }))),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect((await invoices.get('race'))?.error).toBe(`r${winner}`);
    });

    race(
      `${CONCURRENCY} concurrent updates expecting the same version: exactly one wins, and it is stored`,
      async () => {
        await invoices.create(invoice('race'));
        const results = await Promise.all(
          Array.from({ length: CONCURRENCY }, (_, i) =>
            invoices.update(invoice('race', { version: 2, error: `writer ${i}` }), 1),
          ),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        const stored = await invoices.get('race');
        expect(stored).toMatchObject({ version: 2, error: `writer ${results.indexOf(true)}` });
      },
    );

    test('open-items index: open records listed oldest change first; final or settled ones are not', async () => {
      await invoices.create(invoice('sending', { updatedAt: 3_000 }));
      await invoices.create(invoice('pending', { ...sent('pending'), updatedAt: 1_000 }));
      await invoices.create(invoice('unknown', { phase: 'unknown', updatedAt: 2_000 }));
      await invoices.create(invoice('confirmed', { ...sent('confirmed'), updatedAt: 500 }));
      await invoices.create(invoice('rejected', { phase: 'rejected', updatedAt: 600 }));
      await refunds.create(refund('refund-open', { updatedAt: 100 }));

      expect(openIds(await invoices.listOpen(10))).toEqual(['pending', 'unknown', 'sending']);
      expect(openIds(await invoices.listOpen(2))).toEqual(['pending', 'unknown']);
      expect(openIds(await refunds.listOpen(10))).toEqual(['refund-open']);
    });

    test('open-items index ordered by a due time: only records due by then are listed, soonest due first', async () => {
      const scheduled = new VersionedDynamoStore<InvoiceRecord>(
        table,
        DEFAULT_STORE_ID,
        'INVOICE',
        isOpen,
        (record) => (record.sweptAt === undefined ? record.updatedAt : record.sweptAt + 10_000),
      );
      await scheduled.create(invoice('due-first', { ...sent('pending'), updatedAt: 1_000 }));
      await scheduled.create(invoice('due-later', { ...sent('pending'), updatedAt: 4_000 }));
      await scheduled.create(invoice('swept', { ...sent('pending'), updatedAt: 500, sweptAt: 2_000 }));

      expect(openIds(await scheduled.listOpen(10, 5_000))).toEqual(['due-first', 'due-later']);
      expect(openIds(await scheduled.listOpen(10, 12_000))).toEqual(['due-first', 'due-later', 'swept']);
      expect(openIds(await scheduled.listOpen(10, 999))).toEqual([]);
    });

    test('open-items index: a record leaves it when it becomes final and rejoins when reopened', async () => {
      const pending = invoice('pending', { ...sent('pending'), updatedAt: 1_000 });
      const rejected = invoice('rejected', { phase: 'rejected', updatedAt: 2_000 });
      await invoices.create(pending);
      await invoices.create(rejected);
      expect(openIds(await invoices.listOpen(10))).toEqual(['pending']);

      expect(
        await invoices.update({ ...pending, version: 2, status: 'confirmed', updatedAt: 4_000 }, 1),
      ).toBe(true);
      // A refused request may be retried: the takeover claims it again, so it is open work once more.
      expect(await invoices.update({ ...rejected, version: 2, phase: 'sending', updatedAt: 3_000 }, 1)).toBe(
        true,
      );
      expect(openIds(await invoices.listOpen(10))).toEqual(['rejected']);

      const [item] = (await scan()).filter((entry) => entry.pk.S === 'INVOICE#pending');
      expect(item.gsi1pk).toBeUndefined();
      expect(item.gsi1sk).toBeUndefined();
    });

    test('given the record it replaces, an update writes the open-items keys only when they move', async () => {
      const dueAt = (record: InvoiceRecord) => record.sweptAt ?? record.createdAt + 60_000;
      const scheduled = new VersionedDynamoStore<InvoiceRecord>(
        table,
        DEFAULT_STORE_ID,
        'INVOICE',
        isOpen,
        dueAt,
      );
      const expressions: string[] = [];
      client.middlewareStack.add(
        (next) => (args) => {
          const { UpdateExpression } = args.input as { UpdateExpression?: string };
          if (UpdateExpression) expressions.push(UpdateExpression);
          return next(args);
        },
        { step: 'initialize', name: 'testUpdateExpressions' },
      );
      const claim = invoice('order-1', { createdAt: 1_000 });
      const answered = { ...claim, ...sent('pending'), version: 2, updatedAt: 1_100 };
      const swept = { ...answered, version: 3, sweptAt: 70_000 };
      const paid = { ...swept, ...sent('confirmed'), version: 4 };
      try {
        await scheduled.create(claim);
        expect(await scheduled.update(answered, 1, claim)).toBe(true);
        expect(openIds(await scheduled.listOpen(10, 61_000))).toEqual(['order-1']);
        expect(await scheduled.update(swept, 2, answered)).toBe(true);
        expect(openIds(await scheduled.listOpen(10, 61_000))).toEqual([]);
        expect(openIds(await scheduled.listOpen(10, 70_000))).toEqual(['order-1']);
        expect(await scheduled.update(paid, 3, swept)).toBe(true);
        expect(openIds(await scheduled.listOpen(10))).toEqual([]);
      } finally {
        client.middlewareStack.remove('testUpdateExpressions');
      }

      expect(expressions).toEqual([
        'SET #data = :data, version = :version',
        'SET #data = :data, version = :version, gsi1pk = :openPk, gsi1sk = :openSk',
        'SET #data = :data, version = :version REMOVE gsi1pk, gsi1sk',
      ]);
    });

    test('an update computed before the outbox was drained writes its events back, and lists the record as due again, but keeps the progress', async () => {
      const at = Date.now();
      await invoices.create(withEvents(invoiceEvents, invoice('order-1', sent('pending')), at));
      const read = (await invoices.get('order-1'))!;
      const progress = { through: 1, delivered: { seq: 1, at } };
      const drained = { record: read, progress: undefined };
      expect(await invoices.drainOutbox(drained, progress)).toBe(true);
      // A second drain from the same read finds the progress changed.
      expect(await invoices.drainOutbox(drained, { through: 1 })).toBe(false);
      const deliveries = new DynamoDeliveryStore(table, 30);
      expect(await deliveries.listDue(at, 10)).toEqual([]);

      const paid = withEvents(
        invoiceEvents,
        { ...read, ...sent('confirmed'), version: read.version + 1 },
        at,
      );
      expect(await invoices.update(paid, read.version, read)).toBe(true);
      const [item] = await scan();
      expect(item[DUE_PK]).toBeDefined();
      expect(item[DUE_SK]).toBeDefined();
      expect(await deliveries.listDue(at, 10)).toEqual([
        { storeId: 'default', record: 'invoice', foreignId: 'order-1' },
      ]);
      const again = (await invoices.readOutbox('order-1'))!;
      expect(again.record.outbox?.pending.map(({ seq }) => seq)).toEqual([1, 2]);
      expect(again.progress).toEqual(progress);
    });

    test('a stale update does not touch the open-items index either', async () => {
      await invoices.create(invoice('order-1', sent('pending')));
      expect(await invoices.update(invoice('order-1', { version: 2, ...sent('failed') }), 7)).toBe(false);
      expect(openIds(await invoices.listOpen(10))).toEqual(['order-1']);
    });
  });

  describe('DynamoRecordList (the created index)', () => {
    let list: DynamoRecordList<InvoiceRecord>;
    beforeEach(() => {
      list = new DynamoRecordList<InvoiceRecord>(table, DEFAULT_STORE_ID, 'INVOICE');
    });

    /** 37 invoices over 7 milliseconds, so that many share one; and refunds, which no invoice list shows. */
    async function createMany(): Promise<InvoiceRecord[]> {
      const records = Array.from({ length: 37 }, (_, i) =>
        invoice(`order-${String(i).padStart(2, '0')}`, { createdAt: 1_000 + (i % 7) }),
      );
      await Promise.all(records.map((record) => invoices.create(record)));
      await refunds.create(refund('refund-1', { createdAt: 1_003 }));
      return records;
    }

    const newestFirst = (records: InvoiceRecord[]) =>
      [...records]
        .sort((a, b) => b.createdAt - a.createdAt || (a.foreignId < b.foreignId ? 1 : -1))
        .map((record) => record.foreignId);

    /** Every page from the first, each continuing after the last record of the one before. */
    async function walk(query: Omit<CreatedQuery, 'after'>) {
      const pages: Array<{ ids: string[]; more: boolean }> = [];
      let after: CreatedQuery['after'];
      for (;;) {
        const { records, more } = await list.listNewest({ ...query, after });
        pages.push({ ids: ids(records), more });
        if (!more) return pages;
        const last = records[records.length - 1];
        after = { createdAt: last.createdAt, foreignId: last.foreignId };
      }
    }

    test('pages run newest first, then by foreign_id, with no duplicate or gap; `more` is false only at the end', async () => {
      const expected = newestFirst(await createMany());
      for (const limit of [1, 5, 37, 100]) {
        const pages = await walk({ limit });
        expect(pages.flatMap((page) => page.ids)).toEqual(expected);
        expect(pages.map((page) => page.ids.length)).toEqual(
          Array.from({ length: Math.ceil(37 / limit) }, (_, i) => Math.min(limit, 37 - i * limit)),
        );
      }
    });

    test('the range is at or after createdFrom and strictly before createdBefore, on every page', async () => {
      const records = await createMany();
      const inRange = records.filter((record) => record.createdAt >= 1_002 && record.createdAt < 1_005);
      const pages = await walk({ limit: 4, createdFrom: 1_002, createdBefore: 1_005 });
      expect(pages.flatMap((page) => page.ids)).toEqual(newestFirst(inRange));
      expect(await list.listNewest({ limit: 4, createdFrom: 1_005, createdBefore: 1_002 })).toEqual({
        records: [],
        more: false,
      });
      const belowRange = { createdAt: 1_001, foreignId: 'order-99' };
      expect(await list.listNewest({ limit: 4, createdFrom: 1_002, after: belowRange })).toEqual({
        records: [],
        more: false,
      });
    });

    test('records come whole and current; their index keys, spread over shards, never change', async () => {
      await createMany();
      const keysOf = async () =>
        (await scan())
          .filter((item) => item.pk.S?.startsWith('INVOICE#'))
          .map((item) => ({ record: item.pk.S, shard: item.gsi2pk.S, position: item.gsi2sk.S }))
          .sort((x, y) => String(x.record).localeCompare(String(y.record)));
      const created = await keysOf();
      expect(new Set(created.map(({ shard }) => shard)).size).toBeGreaterThan(1);
      const paid = { ...(await invoices.get('order-05'))!, version: 2, ...sent('confirmed') };
      expect(await invoices.update(paid, 1)).toBe(true);
      expect(await keysOf()).toEqual(created);
      const { records } = await list.listNewest({ limit: 100 });
      expect(records.find((record) => record.foreignId === 'order-05')).toEqual(paid);
    });

    test('an index key whose record is not readable yet ends the page before it, so the next page lists it', async () => {
      // A DynamoDB index can be read ahead of an eventually consistent read of the table: an index entry with no
      // record behind it stands for that moment.
      await invoices.create(invoice('order-a', { createdAt: 1_003 }));
      await invoices.create(invoice('order-c', { createdAt: 1_001 }));
      const late = invoice('order-b', { createdAt: 1_002 });
      const standIn = {
        pk: str('STAND-IN'),
        sk: str('STAND-IN'),
        ...createdKeys('INVOICE', late, DEFAULT_STORE_ID),
      };
      await client.send(new PutItemCommand({ TableName: table.name, Item: standIn }));

      expect(await list.listNewest({ limit: 10 })).toEqual({
        records: [await invoices.get('order-a')],
        more: true,
      });
      const afterA = { createdAt: 1_003, foreignId: 'order-a' };
      await expect(list.listNewest({ limit: 10, after: afterA })).rejects.toThrow(/not readable yet/);

      await invoices.create(late);
      await client.send(
        new DeleteItemCommand({ TableName: table.name, Key: { pk: standIn.pk, sk: standIn.sk } }),
      );
      expect(ids((await list.listNewest({ limit: 10, after: afterA })).records)).toEqual([
        'order-b',
        'order-c',
      ]);
    });
  });

  describe('DynamoSnapshotStore', () => {
    const snapshot = (takenAt: number) => ({
      takenAt,
      source: 'scheduled' as const,
      balances: [{ currency: 'BTC', type: 'crypto' as const, balance: `${takenAt}.00000000` }],
    });

    test('latest is the newest by time taken, whatever the order written', async () => {
      const snapshots = new DynamoSnapshotStore(table, DEFAULT_STORE_ID, 90);
      expect(await snapshots.latest()).toBeUndefined();
      for (const takenAt of [1_700_000_001_000, 1_700_000_003_000, 1_700_000_002_000]) {
        await snapshots.put(snapshot(takenAt));
      }
      expect(await snapshots.latest()).toEqual(snapshot(1_700_000_003_000));
    });

    test('since lists oldest first from the given time, up to the limit', async () => {
      const snapshots = new DynamoSnapshotStore(table, DEFAULT_STORE_ID, 90);
      const times = [9_000, 100_000, 1_700_000_000_000, 1_700_000_060_000, 1_700_000_120_000];
      for (const takenAt of [...times].reverse()) await snapshots.put(snapshot(takenAt));
      const taken = async (since: number, limit: number) =>
        (await snapshots.since(since, limit)).map((entry) => entry.takenAt);

      expect(await taken(0, 100)).toEqual(times);
      expect(await taken(50_000, 100)).toEqual(times.slice(1));
      expect(await taken(1_700_000_000_001, 100)).toEqual(times.slice(3));
      expect(await taken(0, 2)).toEqual(times.slice(0, 2));
      expect(await taken(1_800_000_000_000, 100)).toEqual([]);
    });

    test('one live slot a minute: a claim is refused until the last kept one is that old', async () => {
      const snapshots = new DynamoSnapshotStore(table, DEFAULT_STORE_ID, 90);
      const at = 1_700_000_000_000;
      expect(await snapshots.claimLiveSlot(at, 60_000)).toBe(true);
      expect(await snapshots.claimLiveSlot(at + 59_999, 60_000)).toBe(false);
      expect(await snapshots.claimLiveSlot(at + 60_000, 60_000)).toBe(true);
      expect(await snapshots.claimLiveSlot(at + 60_001, 60_000)).toBe(false);
      // The slot is an item of its own: it is never listed as a snapshot.
      expect(await snapshots.latest()).toBeUndefined();
      expect(await snapshots.since(0, 10)).toEqual([]);
    });

    race(`${CONCURRENCY} concurrent live slot claims: exactly one is true`, async () => {
      const snapshots = new DynamoSnapshotStore(table, DEFAULT_STORE_ID, 90);
      const results = await Promise.all(
        Array.from({ length: CONCURRENCY }, () => snapshots.claimLiveSlot(1_700_000_000_000, 60_000)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });

    test('snapshots carry a TTL of the retention period', async () => {
      await new DynamoSnapshotStore(table, DEFAULT_STORE_ID, 90).put(snapshot(1_700_000_000_000));
      const [item] = await scan();
      expect(Number(item.ttl.N)).toBe(1_700_000_000 + 90 * DAY_SECONDS);
    });
  });

  describe('claim protocol (domain/records.ts) on this backend', () => {
    const timing = (waitMs: number): ClaimTiming => ({ now: Date.now, leaseMs: 60_000, waitMs, pollMs: 20 });
    const takeOver = (fresh: InvoiceRecord) => (existing: InvoiceRecord) => ({
      ...fresh,
      version: existing.version + 1,
      claimedAt: Date.now(),
    });
    const claimers = (fresh: () => InvoiceRecord, waitMs: number) =>
      Promise.allSettled(
        Array.from({ length: CONCURRENCY }, () => {
          const record = fresh();
          return claim(invoices, record, timing(waitMs), takeOver(record));
        }),
      );
    const owners = (results: PromiseSettledResult<{ owned: boolean }>[]) =>
      results.filter((result) => result.status === 'fulfilled' && result.value.owned);
    const rejections = (results: PromiseSettledResult<unknown>[]) =>
      results.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));

    race(
      `${CONCURRENCY} concurrent claimers of a new id: one owner, the rest give up with in_progress`,
      async () => {
        const results = await claimers(() => invoice('order-1'), 200);
        expect(owners(results)).toHaveLength(1);
        const others = rejections(results);
        expect(others).toHaveLength(CONCURRENCY - 1);
        for (const reason of others) expect(reason).toBeInstanceOf(InProgressError);
      },
    );

    race(
      `${CONCURRENCY} concurrent claimers: when the owner finishes, the rest answer its record`,
      async () => {
        // Waiters give up after waitMs; the test ends as soon as the owner finishes, so a long wait costs nothing.
        const finishing = claimers(() => invoice('order-1'), 20_000);
        const finish = (async () => {
          for (;;) {
            const current = await invoices.get('order-1');
            if (current) return save(invoices, current, { ...current, ...sent('pending') });
            await new Promise((resolve) => setTimeout(resolve, 10));
          }
        })();
        const [results] = await Promise.all([finishing, finish]);
        expect(owners(results)).toHaveLength(1);
        const answered = results.filter((result) => result.status === 'fulfilled' && !result.value.owned);
        expect(answered).toHaveLength(CONCURRENCY - 1);
        for (const result of answered) {
          expect(result.status === 'fulfilled' && result.value.record).toMatchObject({
            phase: 'sent',
            version: 2,
          });
        }
      },
    );

    race(`${CONCURRENCY} concurrent claimers of an expired lease: exactly one takes it over`, async () => {
      await invoices.create(invoice('order-1', { claimedAt: Date.now() - 120_000 }));
      const results = await claimers(() => invoice('order-1'), 200);
      expect(owners(results)).toHaveLength(1);
      expect(rejections(results).every((reason) => reason instanceof InProgressError)).toBe(true);
      expect((await invoices.get('order-1'))?.version).toBe(2);
    });

    race(
      `${CONCURRENCY} concurrent retries of a rejected request with a new body: exactly one owner`,
      async () => {
        await invoices.create(invoice('order-1', { phase: 'rejected', error: 'amount too small' }));
        const results = await claimers(() => invoice('order-1', anotherRequest('order-1')), 200);
        expect(owners(results)).toHaveLength(1);
        expect(rejections(results).every((reason) => reason instanceof InProgressError)).toBe(true);
      },
    );

    test('a different request for a claimed id is a conflict for every claimer', async () => {
      await invoices.create(invoice('order-1', sent('pending')));
      const results = await claimers(() => invoice('order-1', anotherRequest('order-1')), 200);
      const reasons = rejections(results);
      expect(reasons).toHaveLength(CONCURRENCY);
      for (const reason of reasons) expect(reason).toMatchObject({ code: 'foreign_id_conflict' });
      expect(reasons[0]).toBeInstanceOf(ConflictError);
    });
  });
});
