// The lists end to end, through the local gateway and dynalite: 1,000 invoices paged with no duplicate and no gap
// while others are created, the status and time filters, refunds, and the balance history's cursor.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { InvoiceRecord, RefundRecord } from '../../domain/model';
import { isOpen } from '../../domain/status';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import { encodeCursor } from '../../http/cursor';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import { DynamoSnapshotStore } from '../../store/snapshot-store';
import { VersionedDynamoStore } from '../../store/versioned-store';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
let client: DynamoDBClient;
let invoices: VersionedDynamoStore<InvoiceRecord>;
let refunds: VersionedDynamoStore<RefundRecord>;
/** A real invoice and refund, as checkout and POST /refunds stored them: the records below are their copies. */
let invoiceTemplate: InvoiceRecord;
let refundTemplate: RefundRecord;

const SEEDED = 1_000;
/** Seeded records share milliseconds four at a time, so that ties are ordered by foreign_id. */
const BASE_MS = Date.parse('2026-01-01T00:00:00.000Z');
const seededAt = (i: number) => BASE_MS + Math.floor(i / 4);
const seededId = (i: number) => `seed-${String(i).padStart(4, '0')}`;
/** Every tenth seeded invoice is paid. */
const isPaid = (i: number) => i % 10 === 0;

beforeAll(async () => {
  output = captureOutput(); // the refusals below log warnings; keep the run quiet
  harness = await startHarness();
  await harness.control('POST', '/callbacks', { url: null });
  client = new DynamoDBClient({
    endpoint: harness.stack.dynamo.url,
    region: 'us-east-1',
    credentials: LOCAL_CREDENTIALS,
  });
  const table = { client, name: harness.stack.tableName };
  invoices = new VersionedDynamoStore<InvoiceRecord>(table, DEFAULT_STORE_ID, 'INVOICE', isOpen);
  refunds = new VersionedDynamoStore<RefundRecord>(table, DEFAULT_STORE_ID, 'REFUND', isOpen);

  expect(
    (await harness.api('POST', '/checkout', { token: 'storefront', body: checkoutBody('template') })).status,
  ).toBe(201);
  expect(
    (await harness.api('POST', '/refunds', { token: 'admin', body: refundBody('template') })).status,
  ).toBe(201);
  invoiceTemplate = (await storedRecord(harness.stack, 'INVOICE', 'template')) as InvoiceRecord;
  refundTemplate = (await storedRecord(harness.stack, 'REFUND', 'template')) as RefundRecord;
  await inParallel(SEEDED, (i) =>
    invoices.create(
      invoiceCopy(seededId(i), seededAt(i), isPaid(i) ? { status: 'confirmed' } : { status: 'pending' }),
    ),
  );
}, 60_000);
afterAll(async () => {
  client?.destroy();
  await harness?.close();
  output.restore();
});

function invoiceCopy(foreignId: string, createdAt: number, overrides: Partial<InvoiceRecord> = {}) {
  return {
    ...invoiceTemplate,
    foreignId,
    request: { ...invoiceTemplate.request, foreignId },
    version: 1,
    createdAt,
    ...overrides,
  };
}

/** Runs `count` writes, 25 at a time: dynalite is in this process, on a busy machine. */
async function inParallel(count: number, write: (i: number) => Promise<boolean>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) expect(await write(next++)).toBe(true);
  };
  await Promise.all(Array.from({ length: 25 }, worker));
}

interface Listed {
  foreign_id: string;
  created_at: number | string;
}

/** Every page of a list from the first, following next_cursor; each page's answer must be a 200. */
async function walk(path: string, onPage: () => Promise<void> = async () => undefined) {
  const pages: Listed[][] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const url: string = cursor ? `${path}${separator}cursor=${cursor}` : path;
    const { status, body } = await harness.api('GET', url, { token: 'admin' });
    expect({ url, status }).toEqual({ url, status: 200 });
    expect(Object.keys(body).sort()).toEqual(['data', 'next_cursor']);
    pages.push(body.data);
    cursor = body.next_cursor;
    await onPage();
  } while (cursor);
  return pages;
}

const idsOf = (pages: Listed[][]) => pages.flat().map((item) => item.foreign_id);
const ms = (time: number | string) => (typeof time === 'number' ? time : Date.parse(time));
const seededNewestFirst = (keep: (i: number) => boolean = () => true) =>
  Array.from({ length: SEEDED }, (_, i) => i)
    .filter(keep)
    .sort((a, b) => seededAt(b) - seededAt(a) || b - a)
    .map(seededId);

test('1,000 invoices page newest first with no duplicate and no gap while new ones are created', async () => {
  // Two kinds of concurrent creates: checkouts (newer than every page already read), and records written with a
  // creation time inside the range being paged, as a slow writer would.
  // Each write's outcome is recorded, a failure too, and asserted once the walk is done.
  let writing = true;
  const outcomes: Array<{ foreignId: string; outcome: number | boolean | string }> = [];
  const writer = (async () => {
    for (let n = 0; writing; n++) {
      const foreignId = `concurrent-${n}`;
      const write =
        n % 5 === 0
          ? harness
              .api('POST', '/checkout', { token: 'storefront', body: checkoutBody(foreignId) })
              .then((answer) => answer.status)
          : invoices.create(invoiceCopy(foreignId, seededAt((n * 37) % SEEDED)));
      outcomes.push({ foreignId, outcome: await write.catch((error: Error) => error.message) });
    }
  })();
  // After each page the walk waits for another write to land, so that it pages while records are created however
  // fast or slow the machine is.
  let pagesFollowedByAWrite = 0;
  const pages = await walk('/invoices?limit=100', async () => {
    const before = outcomes.length;
    const landed = await waitFor(
      async () => outcomes.length,
      (count) => count > before,
      15_000,
    );
    if (landed > before) pagesFollowedByAWrite++;
  });
  writing = false;
  await writer;

  expect(outcomes.filter(({ outcome }) => outcome !== 201 && outcome !== true)).toEqual([]);
  expect(pagesFollowedByAWrite).toBe(pages.length);
  const concurrent = outcomes.map(({ foreignId }) => foreignId);
  const listed = idsOf(pages);
  expect(new Set(listed).size).toBe(listed.length);
  expect(listed.filter((id) => id.startsWith('seed-'))).toEqual(seededNewestFirst());
  const known = new Set(['template', ...concurrent, ...seededNewestFirst()]);
  expect(listed.filter((id) => !known.has(id))).toEqual([]);
  for (const page of pages.slice(0, -1)) expect(page).toHaveLength(100);

  // Once the writes are done, a second walk with another page size lists every invoice, in order.
  const settled = (await walk('/invoices?limit=37')).flat();
  expect(settled).toHaveLength(SEEDED + concurrent.length + 1);
  for (let i = 1; i < settled.length; i++) {
    const [newer, older] = [settled[i - 1], settled[i]];
    const inOrder =
      ms(newer.created_at) > ms(older.created_at) ||
      (ms(newer.created_at) === ms(older.created_at) && newer.foreign_id > older.foreign_id);
    expect({ newer: newer.foreign_id, older: older.foreign_id, inOrder }).toMatchObject({ inOrder: true });
  }
}, 60_000);

test('status and creation-time filters page through exactly the matching invoices', async () => {
  const paid = idsOf(await walk('/invoices?status=paid&limit=30'));
  expect(paid).toEqual(seededNewestFirst(isPaid));

  const [from, to] = [100, 300];
  const after = new Date(seededAt(from) - 1).toISOString();
  const before = new Date(seededAt(to)).toISOString();
  // The slow writers of the first test put records in this range too; each listed one must be in it.
  const inRange = (await walk(`/invoices?created_after=${after}&created_before=${before}&limit=25`)).flat();
  for (const { foreign_id: id, created_at: at } of inRange) {
    expect({ id, inRange: ms(at) >= seededAt(from) && ms(at) < seededAt(to) }).toEqual({ id, inRange: true });
  }
  const seeded = inRange.map((item) => item.foreign_id).filter((id) => id.startsWith('seed-'));
  expect(seeded).toEqual(
    seededNewestFirst((i) => seededAt(i) >= seededAt(from) && seededAt(i) < seededAt(to)),
  );

  const paidInRange = idsOf(
    await walk(`/invoices?status=paid&created_after=${after}&created_before=${before}&limit=7`),
  );
  expect(paidInRange).toEqual(seeded.filter((id) => isPaid(Number(id.slice('seed-'.length)))));
});

test('refunds page newest first, by their own creation times', async () => {
  const count = 150;
  await inParallel(count, (i) =>
    refunds.create({
      ...refundTemplate,
      foreignId: `refund-${String(i).padStart(3, '0')}`,
      request: { ...refundTemplate.request, foreignId: `refund-${String(i).padStart(3, '0')}` },
      version: 1,
      createdAt: BASE_MS + i,
    }),
  );
  const listed = idsOf(await walk('/refunds?limit=40'));
  const expected = Array.from(
    { length: count },
    (_, i) => `refund-${String(count - 1 - i).padStart(3, '0')}`,
  );
  expect(listed).toEqual(['template', ...expected]);
});

test('balance history pages oldest first with the same cursor, and since still filters', async () => {
  const snapshots = new DynamoSnapshotStore({ client, name: harness.stack.tableName }, DEFAULT_STORE_ID, 90);
  const takenAt = Array.from({ length: 25 }, (_, i) => BASE_MS + i * 60_000);
  for (const at of takenAt) await snapshots.put({ takenAt: at, source: 'scheduled', balances: [] });
  const times = (pages: Array<Array<{ taken_at: string }>>) =>
    pages.flat().map((s) => Date.parse(s.taken_at));

  const all = (await walk('/balances/history?limit=10')) as unknown as Array<Array<{ taken_at: string }>>;
  expect(all.map((page) => page.length)).toEqual([10, 10, 5]);
  expect(times(all)).toEqual(takenAt);
  const since = new Date(takenAt[20]).toISOString();
  expect(times((await walk(`/balances/history?since=${since}&limit=2`)) as never)).toEqual(takenAt.slice(20));
});

test('a cursor that no list gave out, or that belongs to another kind of list, is a 400 naming cursor', async () => {
  const foreign = encodeCursor({ at: BASE_MS });
  for (const path of ['/invoices?cursor=bm90LWEtY3Vyc29y', `/refunds?cursor=${foreign}`]) {
    const { status, body } = await harness.api('GET', path, { token: 'admin' });
    expect({ path, status, fields: Object.keys(body.error.fields) }).toEqual({
      path,
      status: 400,
      fields: ['cursor'],
    });
  }
  const record = encodeCursor({ at: BASE_MS, foreignId: 'seed-0001' });
  const history = await harness.api('GET', `/balances/history?cursor=${record}`, { token: 'admin' });
  expect(history.status).toBe(400);
  expect(Object.keys(history.body.error.fields)).toEqual(['cursor']);
});

test('the storefront token may not list invoices or refunds', async () => {
  for (const path of ['/invoices', '/refunds']) {
    expect((await harness.api('GET', path, { token: 'storefront' })).status).toBe(403);
  }
});
