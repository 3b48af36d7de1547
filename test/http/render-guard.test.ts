// A stored record no view can render (here an expiry past JavaScript's dates, as a record kept before the service's
// times were bounded may hold) answers its own clear error, and never breaks a list, an export, a webhook or the
// other records: each leaves it out or marks it, and counts it (issue 40).
import type { ClaimedRecord, InvoiceDetails, InvoiceRecord, RefundRecord } from '../../domain/model';
import type { Delivery, OutboxEvent } from '../../domain/webhook-model';
import type { CreatedQuery, ListPosition, NewestFirst } from '../../domain/ports';
import { DEFAULT_STORE_ID, type StoreRecord } from '../../domain/stores';
import { listBody, recordListBody } from '../../http/cursor';
import { toErrorResponse, UnrenderableRecordError } from '../../http/errors';
import { invoiceExportPage, refundExportPage, UNRENDERABLE_STATUS } from '../../http/exports';
import { storeListBody } from '../../http/store-views';
import { deliveryView, webhookPayload } from '../../http/webhook-views';
import { invoiceView, publicInvoiceView, refundView } from '../../http/views';
import { captureOutput, type CapturedOutput } from '../support/output';

const AT = Date.UTC(2030, 0, 1);
/** Unix seconds whose milliseconds are past JavaScript's dates: `new Date(ms).toISOString()` throws on them. */
const PAST_JS_DATES = 9_000_000_000_000;

const invoice = (foreignId: string, createdAt: number, releaseAt = AT / 1000 + 900): InvoiceRecord =>
  ({
    foreignId,
    version: 2,
    phase: 'sent',
    attempt: 1,
    request: {
      title: 'Order',
      currency: 'EUR',
      amount: '25.50000000',
      urlSuccess: 'https://s/ok',
      urlFailed: 'https://s/no',
    },
    invoice: { id: 7, url: 'https://pay.example/7', releaseAt, fixedAt: null } as unknown as InvoiceDetails,
    status: 'pending',
    payment: null,
    cancelled: false,
    error: null,
    history: [{ status: 'pending', at: createdAt, source: 'create' }],
    createdAt,
    updatedAt: createdAt,
  }) as unknown as InvoiceRecord;

const refund = (foreignId: string, createdAt: number, historyAt = createdAt): RefundRecord =>
  ({
    foreignId,
    version: 2,
    phase: 'sent',
    request: { address: 'bc1qrefund', invoiceForeignId: 'order-a', debitedAmount: '10' },
    status: 'pending',
    error: null,
    history: [{ status: 'pending', at: historyAt, source: 'create' }],
    createdAt,
    updatedAt: createdAt,
  }) as unknown as RefundRecord;

/** The newest-first list in memory, as the created index gives it. */
class MemoryList<T extends ListPosition> implements NewestFirst<T> {
  constructor(private readonly sorted: T[]) {}

  async listNewest({ after, limit }: CreatedQuery) {
    const start = after ? this.sorted.findIndex((row) => row.foreignId === after.foreignId) + 1 : 0;
    const rest = this.sorted.slice(start);
    return { records: rest.slice(0, limit), more: rest.length > limit };
  }
}

let output: CapturedOutput;
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => output.restore());

/** How many `UnrenderableRecords` counts were emitted, as CloudWatch reads the EMF lines. */
const counted = () =>
  output
    .text()
    .split('\n')
    .filter((line) => line.includes('"UnrenderableRecords"'))
    .reduce((sum, line) => sum + (JSON.parse(line).UnrenderableRecords as number), 0);

// Newest first: the bad record sits between two good ones.
const good1 = invoice('order-c', AT + 2_000);
const bad = invoice('order-b', AT + 1_000, PAST_JS_DATES);
const good2 = invoice('order-a', AT);

test("the record's own views answer 500 unrenderable_record, naming the field", () => {
  for (const render of [() => invoiceView(bad, AT), () => publicInvoiceView(bad, AT)]) {
    let thrown: unknown;
    try {
      render();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(UnrenderableRecordError);
    expect(toErrorResponse(thrown)).toEqual({
      status: 500,
      code: 'unrenderable_record',
      message: "The record's expires_at holds a time that cannot be shown",
      fields: undefined,
    });
  }
});

test('a page of invoices leaves it out, counted once, and its cursor still passes it', () => {
  const body = recordListBody(
    { records: [good1, bad, good2], next: { createdAt: good2.createdAt, foreignId: good2.foreignId } },
    (record) => invoiceView(record, AT),
  );

  expect(body.data.map((view) => view.foreign_id)).toEqual(['order-c', 'order-a']);
  expect(body.next_cursor).not.toBeNull();
  expect(counted()).toBe(1);
  expect(output.text()).toContain('"record":"order-b","field":"expires_at"');
});

test('a page whose last record is the bad one still says where the next page starts', () => {
  const body = recordListBody(
    { records: [good1, bad], next: { createdAt: bad.createdAt, foreignId: bad.foreignId } },
    (record) => invoiceView(record, AT),
  );
  expect(body.data).toHaveLength(1);
  expect(body.next_cursor).not.toBeNull();
});

test('the invoices export gives it a row with its id and status unrenderable; every other row is whole', async () => {
  const page = await invoiceExportPage(new MemoryList([good1, bad, good2]), {});

  const rows = page.text.trimEnd().split('\r\n');
  expect(rows).toHaveLength(4);
  expect(rows[1].startsWith('order-c,7,2030-01-01T00:00:02.000Z,')).toBe(true);
  expect(rows[2]).toBe(`order-b,,,,${UNRENDERABLE_STATUS}${','.repeat(rows[0].split(',').length - 5)}`);
  expect(rows[3].startsWith('order-a,7,2030-01-01T00:00:00.000Z,')).toBe(true);
  expect(page.next).toBeNull();
  expect(counted()).toBe(1);
});

test('the refunds export marks a refund whose history holds no time', async () => {
  const page = await refundExportPage(
    new MemoryList([refund('refund-b', AT + 1_000, Number.NaN), refund('refund-a', AT)]),
    {},
  );

  const rows = page.text.trimEnd().split('\r\n');
  expect(rows).toHaveLength(3);
  expect(rows[1]).toMatch(new RegExp(`^refund-b,,,,,${UNRENDERABLE_STATUS},`));
  expect(rows[2].startsWith('refund-a,order-a,,2030-01-01T00:00:00.000Z,')).toBe(true);
  expect(refundView(refund('refund-a', AT)).created_at).toBe('2030-01-01T00:00:00.000Z');
  expect(counted()).toBe(1);
});

test("its webhooks are still sent, in order, marked with data null; another record's are whole", () => {
  const event: OutboxEvent = { id: 'evt-1', type: 'invoice.awaiting_payment', seq: 1, at: AT } as OutboxEvent;

  const marked = JSON.parse(
    webhookPayload('invoice', bad as ClaimedRecord<unknown>, event, DEFAULT_STORE_ID),
  );
  const whole = JSON.parse(
    webhookPayload('invoice', good1 as ClaimedRecord<unknown>, event, DEFAULT_STORE_ID),
  );

  expect(marked).toEqual({
    id: 'evt-1',
    type: 'invoice.awaiting_payment',
    created_at: '2030-01-01T00:00:00.000Z',
    sequence: 1,
    store_id: 'default',
    data: null,
    error: {
      code: 'unrenderable_record',
      message: "The record's expires_at holds a time that cannot be shown",
      foreign_id: 'order-b',
    },
  });
  expect(whole.data.foreign_id).toBe('order-c');
  expect(counted()).toBe(1);
});

test('lists of stores and of deliveries leave such an item out too', () => {
  const store = (id: string, createdAt: number) =>
    ({ id, name: id, status: 'active', account: 'shared', createdAt, updatedAt: createdAt }) as StoreRecord;
  const stores = storeListBody(
    { records: [store('shop-a', AT), store('shop-b', 8.64e15 + 1), store('shop-c', AT)], more: false },
    'https://api.example',
    undefined,
  );
  expect(stores.data.map((shown) => shown.id)).toEqual(['shop-a', 'shop-c']);

  const delivery = (id: string, createdAt: number) =>
    ({ id, state: 'failed', createdAt, lastAttempt: null, deliveredAt: null }) as unknown as Delivery;
  const deliveries = listBody([delivery('d-1', AT), delivery('d-2', Number.NaN)], deliveryView, null);
  expect(deliveries.data.map((shown) => shown.id)).toEqual(['d-1']);
  expect(counted()).toBe(2);
});
