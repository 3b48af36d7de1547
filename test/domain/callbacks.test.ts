// Verified callbacks applied once per delivery, over in-memory stores; the service is never called.
import { CallbackService } from '../../domain/callbacks';
import { NotReadyError } from '../../domain/errors';
import { InvoiceService } from '../../domain/invoices';
import type { Callback, CallbackEvent, InvoiceRecord, RefundRecord } from '../../domain/model';
import type { ProcessingApi, ReceiptStore } from '../../domain/ports';
import { RefundService } from '../../domain/refunds';
import { OUTBOX_CAP } from '../../domain/webhooks';
import { toErrorResponse } from '../../http/errors';
import { MemoryStore } from '../support/memory-store';

class MemoryReceipts implements ReceiptStore {
  readonly states = new Map<string, 'pending' | 'done'>();
  async claim(receiptId: string) {
    if (this.states.has(receiptId)) return false;
    this.states.set(receiptId, 'pending');
    return true;
  }
  async isDone(receiptId: string) {
    return this.states.get(receiptId) === 'done';
  }
  async complete(receiptId: string) {
    this.states.set(receiptId, 'done');
  }
  async release(receiptId: string) {
    this.states.delete(receiptId);
  }
}

const AT = Date.UTC(2030, 0, 1);
const timing = { now: () => AT, leaseMs: 45_000, waitMs: 0, pollMs: 1 };
const noService = new Proxy({} as ProcessingApi, {
  get: () => () => Promise.reject(new Error('a callback is applied without calling the service')),
});

/** What the callbacks read of a record; the request is not among it. */
const common = {
  version: 1,
  claimedAt: AT,
  error: null,
  history: [],
  createdAt: AT,
  updatedAt: AT,
};
const invoice = (foreignId: string, overrides: Partial<InvoiceRecord> = {}) =>
  ({
    ...common,
    foreignId,
    phase: 'sent',
    request: { foreignId },
    status: 'created',
    attempt: 1,
    invoice: null,
    payment: null,
    cancelled: false,
    ...overrides,
  }) as unknown as InvoiceRecord;
const refund = (foreignId: string) =>
  ({
    ...common,
    foreignId,
    phase: 'sent',
    request: { foreignId },
    status: 'processing',
    withdrawal: null,
  }) as unknown as RefundRecord;

let invoices: MemoryStore<InvoiceRecord>;
let refunds: MemoryStore<RefundRecord>;
let receipts: MemoryReceipts;
let callbacks: CallbackService;

beforeEach(() => {
  invoices = new MemoryStore<InvoiceRecord>((record) => record.updatedAt);
  refunds = new MemoryStore<RefundRecord>((record) => record.updatedAt);
  receipts = new MemoryReceipts();
  const invoiceService = new InvoiceService(invoices, noService, timing);
  callbacks = new CallbackService(
    receipts,
    invoiceService,
    new RefundService(refunds, noService, timing, invoiceService),
  );
});

const delivery = (receiptId: string, event: CallbackEvent): Callback => ({ receiptId, event });
const invoiceNews = (status: string, upstreamForeignId = 'order-1'): CallbackEvent => ({
  kind: 'invoice',
  upstreamForeignId,
  status,
});

test('an invoice moves forward once per delivery; a repeat of it is a duplicate', async () => {
  await invoices.create(invoice('order-1'));
  const news = { ...invoiceNews('pending'), payment: { currency: 'BTC', amount: '0.10000000' } };

  expect(await callbacks.receive(delivery('r-1', news))).toBe('applied');
  expect(await callbacks.receive(delivery('r-1', news))).toBe('duplicate');

  expect(await invoices.get('order-1')).toMatchObject({
    status: 'pending',
    payment: { currency: 'BTC', amount: '0.10000000' },
    history: [{ status: 'pending', source: 'callback' }],
    version: 2,
  });
  expect(receipts.states.get('r-1')).toBe('done');
});

test('a copy that finds the receipt held by another copy applies the news itself; nothing new is a duplicate', async () => {
  await invoices.create(invoice('order-1'));
  const news = invoiceNews('processing');
  // Another copy claimed the receipt and died before applying anything.
  await receipts.claim('r-1');

  expect(await callbacks.receive(delivery('r-1', news))).toBe('applied');
  expect((await invoices.get('order-1'))?.status).toBe('processing');
  expect(receipts.states.get('r-1')).toBe('done');

  // A holder still alive has applied it already: the copy finds nothing new.
  await callbacks.receive(delivery('r-2', invoiceNews('confirmed')));
  receipts.states.set('r-2', 'pending');
  expect(await callbacks.receive(delivery('r-2', invoiceNews('confirmed')))).toBe('duplicate');
  expect((await invoices.get('order-1'))?.history.map((change) => change.status)).toEqual([
    'processing',
    'confirmed',
  ]);
});

test('news of a later upstream attempt reaches its order; news that goes nowhere is ignored', async () => {
  await invoices.create(invoice('order-1', { attempt: 2 }));

  expect(await callbacks.receive(delivery('r-1', invoiceNews('pending', 'order-1~2')))).toBe('applied');
  expect(await callbacks.receive(delivery('r-2', invoiceNews('processing', 'order-1')))).toBe('ignored');
  expect(await callbacks.receive(delivery('r-3', invoiceNews('created', 'order-1~2')))).toBe('ignored');
  expect(await callbacks.receive(delivery('r-4', invoiceNews('refunded', 'order-1~2')))).toBe('ignored');
  expect(await callbacks.receive(delivery('r-5', { kind: 'other' }))).toBe('ignored');

  expect((await invoices.get('order-1'))?.status).toBe('pending');
  expect(receipts.states.get('r-4')).toBe('done');
});

test('a withdrawal reaches its refund, with the error the service names', async () => {
  await refunds.create(refund('refund-1'));
  const news: CallbackEvent = {
    kind: 'withdrawal',
    foreignId: 'refund-1',
    status: 'failed',
    error: 'bad address',
  };

  expect(await callbacks.receive(delivery('r-1', news))).toBe('applied');

  expect(await refunds.get('refund-1')).toMatchObject({ status: 'failed', error: 'bad address' });
});

test('a delivery that fails to apply is forgotten, so that a retry of it is applied', async () => {
  await invoices.create(invoice('order-1', { phase: 'sending', status: null }));

  await expect(callbacks.receive(delivery('r-1', invoiceNews('pending')))).rejects.toBeInstanceOf(
    NotReadyError,
  );
  expect(receipts.states.has('r-1')).toBe(false);

  const record = (await invoices.get('order-1'))!;
  await invoices.update({ ...record, phase: 'sent', status: 'created', version: 2 }, 1);
  expect(await callbacks.receive(delivery('r-1', invoiceNews('pending')))).toBe('applied');
});

test('news for a record whose outbox is full is answered 503, never a 4xx, and its receipt is freed for the retry', async () => {
  const event = {
    id: 'evt',
    type: 'invoice.confirming',
    seq: 1,
    at: AT,
    state: { historyLength: 0 },
  } as const;
  const pending = Array.from({ length: OUTBOX_CAP }, (_, index) => ({ ...event, seq: index + 1 }));
  await invoices.create(
    invoice('order-1', {
      outbox: { seq: OUTBOX_CAP, announced: { status: 'awaiting_payment', exception: null }, pending },
    }),
  );

  const refused = callbacks.receive(delivery('r-1', invoiceNews('processing')));
  await expect(refused).rejects.toBeInstanceOf(NotReadyError);
  expect(toErrorResponse(await refused.catch((error: unknown) => error)).status).toBe(503);
  expect(receipts.states.has('r-1')).toBe(false);

  // A copy that finds another copy's receipt pending is answered the same way.
  await receipts.claim('r-2');
  await expect(callbacks.receive(delivery('r-2', invoiceNews('processing')))).rejects.toBeInstanceOf(
    NotReadyError,
  );
  expect((await invoices.get('order-1'))?.status).toBe('created');
});
