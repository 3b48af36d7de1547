import { oneAccount } from '../../domain/upstream';
// Verified callbacks applied once whatever copies arrive, over in-memory stores; the service is never called.
import { CallbackService } from '../../domain/callbacks';
import { NotReadyError } from '../../domain/errors';
import { InvoiceService } from '../../domain/invoices';
import type { CallbackEvent, InvoiceRecord, RefundRecord } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';
import { RefundService } from '../../domain/refunds';
import { OUTBOX_CAP } from '../../domain/webhooks';
import { toErrorResponse } from '../../http/errors';
import { MemoryStore } from '../support/memory-store';

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

/** A memory store that counts the writes that land, and can die around one as a function would. */
class WatchedStore<T extends InvoiceRecord | RefundRecord> extends MemoryStore<T> {
  writes = 0;
  /** Whether the next update dies before it lands, or after it has landed with its answer lost. */
  dies?: 'before' | 'after';

  async update(record: T, expectedVersion: number): Promise<boolean> {
    const dies = this.dies;
    this.dies = undefined;
    if (dies === 'before') throw new Error('the function died before its write');
    const won = await super.update(record, expectedVersion);
    if (won) this.writes++;
    if (dies === 'after') throw new Error('the function died after its write landed');
    return won;
  }
}

let invoices: WatchedStore<InvoiceRecord>;
let refunds: WatchedStore<RefundRecord>;
let callbacks: CallbackService;

/** The services over fresh stores; `announce: false` keeps the outbox, never drained here, from filling up. */
function start(announce = true) {
  invoices = new WatchedStore<InvoiceRecord>((record) => record.updatedAt);
  refunds = new WatchedStore<RefundRecord>((record) => record.updatedAt);
  const invoiceService = new InvoiceService(invoices, oneAccount(noService), timing, { announce });
  callbacks = new CallbackService(
    invoiceService,
    new RefundService(refunds, oneAccount(noService), timing, invoiceService),
    'shared',
  );
}

beforeEach(() => start());
type InvoiceEvent = Extract<CallbackEvent, { kind: 'invoice' }>;
const invoiceNews = (status: string, upstreamForeignId = 'order-1'): InvoiceEvent => ({
  kind: 'invoice',
  upstreamForeignId,
  status,
});

test('an invoice moves forward once; a repeat of the delivery is a duplicate and writes nothing', async () => {
  await invoices.create(invoice('order-1'));
  const news = { ...invoiceNews('pending'), payment: { currency: 'BTC', amount: '0.10000000' } };

  expect(await callbacks.receive(news)).toBe('applied');
  const applied = await invoices.get('order-1');
  expect(await callbacks.receive(news)).toBe('duplicate');

  expect(invoices.writes).toBe(1);
  expect(await invoices.get('order-1')).toEqual(applied);
  expect(applied).toMatchObject({
    status: 'pending',
    payment: { currency: 'BTC', amount: '0.10000000' },
    history: [{ status: 'pending', source: 'callback' }],
    version: 2,
  });
});

/** Every kind of invoice news, in the order the service sends it: each moves the record. */
const EXPIRES_AT = AT / 1000 + 86_400;
const invoiceLife: Array<[string, CallbackEvent]> = [
  ['a partial payment', { ...invoiceNews('pending'), payment: { currency: 'BTC', amount: '0.04' } }],
  [
    'the expiry moved on',
    { ...invoiceNews('pending'), payment: { currency: 'BTC', amount: '0.04' }, expiresAt: EXPIRES_AT },
  ],
  [
    'a deposit id',
    { ...invoiceNews('pending'), payment: { currency: 'BTC', amount: '0.04' }, depositIds: [7] },
  ],
  [
    'the rest paid, and over',
    { ...invoiceNews('processing'), payment: { currency: 'BTC', amount: '0.12' }, depositIds: [7, 8] },
  ],
  [
    'a confirmation',
    { ...invoiceNews('processing'), payment: { currency: 'BTC', amount: '0.12' }, confirmations: 1 },
  ],
  [
    'another confirmation',
    { ...invoiceNews('processing'), payment: { currency: 'BTC', amount: '0.12' }, confirmations: 2 },
  ],
  [
    'confirmed and credited',
    {
      ...invoiceNews('confirmed'),
      payment: { currency: 'BTC', amount: '0.12' },
      settlement: { currency: 'EUR', net: '50.00000000', fees: [] },
    },
  ],
  [
    'late money credited',
    {
      ...invoiceNews('confirmed'),
      payment: { currency: 'BTC', amount: '0.13' },
      settlement: { currency: 'EUR', net: '54.00000000', fees: [] },
    },
  ],
];

test.each([
  ['in the order they came', (all: CallbackEvent[]) => all],
  ['in reverse', (all: CallbackEvent[]) => [...all].reverse()],
])(
  'every callback of an invoice applied again, %s, writes nothing and adds no history',
  async (_name, order) => {
    start(false);
    await invoices.create(
      invoice('order-1', {
        invoice: { id: 1, amount: '50', releaseAt: AT / 1000 + 900 } as InvoiceRecord['invoice'],
      }),
    );
    for (const [what, news] of invoiceLife) {
      expect([what, await callbacks.receive(news)]).toEqual([what, 'applied']);
    }
    const settled = await invoices.get('order-1');
    const writes = invoices.writes;

    for (const news of order(invoiceLife.map(([, news]) => news))) {
      expect(await callbacks.receive(news)).not.toBe('applied');
    }

    expect(invoices.writes).toBe(writes);
    expect(await invoices.get('order-1')).toEqual(settled);
    expect(settled).toMatchObject({
      status: 'confirmed',
      payment: { amount: '0.13000000', late: true },
      settlement: { net: '54.00000000' },
      depositIds: [7, 8],
      confirmations: 2,
      invoice: { releaseAt: EXPIRES_AT },
      history: [{ status: 'pending' }, { status: 'processing' }, { status: 'confirmed' }],
    });
  },
);

test('an expired invoice: its failure and late money, applied again, write nothing', async () => {
  await invoices.create(invoice('order-1'));
  const expired = { ...invoiceNews('failed'), error: 'Timer expired. User not paid.' };
  const lateMoney = { ...expired, payment: { currency: 'BTC', amount: '0.01' } };
  expect(await callbacks.receive(expired)).toBe('applied');
  expect(await callbacks.receive(lateMoney)).toBe('applied');
  const settled = await invoices.get('order-1');

  expect(await callbacks.receive(expired)).toBe('duplicate');
  expect(await callbacks.receive(lateMoney)).toBe('duplicate');

  expect(invoices.writes).toBe(2);
  expect(await invoices.get('order-1')).toEqual(settled);
  expect(settled).toMatchObject({
    status: 'failed',
    payment: { late: true },
    history: [{ status: 'failed' }],
  });
});

test('older news is ignored, not a duplicate: the record holds something newer', async () => {
  await invoices.create(invoice('order-1'));
  const paid = (amount: string) => ({ ...invoiceNews('pending'), payment: { currency: 'BTC', amount } });
  expect(await callbacks.receive(paid('0.3'))).toBe('applied');

  expect(await callbacks.receive(paid('0.1'))).toBe('ignored');
  expect(await callbacks.receive(invoiceNews('created'))).toBe('ignored');
  expect(await callbacks.receive(paid('0.3'))).toBe('duplicate');
  expect(invoices.writes).toBe(1);
});

test('concurrent copies of one delivery: one applies it, the others find it applied', async () => {
  await invoices.create(invoice('order-1'));
  const news = { ...invoiceNews('processing'), payment: { currency: 'BTC', amount: '0.1' } };

  const outcomes = await Promise.all(Array.from({ length: 10 }, () => callbacks.receive(news)));

  expect(outcomes.filter((outcome) => outcome === 'applied')).toHaveLength(1);
  expect(outcomes.filter((outcome) => outcome === 'duplicate')).toHaveLength(9);
  expect(invoices.writes).toBe(1);
  expect((await invoices.get('order-1'))?.history.map((change) => change.status)).toEqual(['processing']);
});

test.each(['before', 'after'] as const)(
  'a copy that dies %s its write is not answered; the retry leaves the news applied once',
  async (when) => {
    await invoices.create(invoice('order-1'));
    const news = { ...invoiceNews('confirmed'), payment: { currency: 'BTC', amount: '0.1' } };
    invoices.dies = when;

    await expect(callbacks.receive(news)).rejects.toThrow('the function died');
    expect(await callbacks.receive(news)).toBe(when === 'before' ? 'applied' : 'duplicate');

    expect(invoices.writes).toBe(1);
    expect(await invoices.get('order-1')).toMatchObject({
      status: 'confirmed',
      payment: { amount: '0.10000000' },
      history: [{ status: 'confirmed', source: 'callback' }],
    });
  },
);

test('news of a later upstream attempt reaches its order; news that goes nowhere is ignored', async () => {
  await invoices.create(invoice('order-1', { attempt: 2 }));

  expect(await callbacks.receive(invoiceNews('pending', 'order-1~2'))).toBe('applied');
  expect(await callbacks.receive(invoiceNews('processing', 'order-1'))).toBe('ignored');
  expect(await callbacks.receive(invoiceNews('created', 'order-1~2'))).toBe('ignored');
  expect(await callbacks.receive(invoiceNews('refunded', 'order-1~2'))).toBe('ignored');
  expect(await callbacks.receive({ kind: 'other' })).toBe('ignored');

  expect((await invoices.get('order-1'))?.status).toBe('pending');
});

test('a withdrawal reaches its refund, with the error the service names; a repeat writes nothing', async () => {
  await refunds.create(refund('refund-1'));
  const news: CallbackEvent = {
    kind: 'withdrawal',
    foreignId: 'refund-1',
    status: 'failed',
    error: 'bad address',
  };
  const progress: CallbackEvent = { kind: 'withdrawal', foreignId: 'refund-1', status: 'processing' };

  expect(await callbacks.receive(progress)).toBe('ignored');
  expect(await callbacks.receive(news)).toBe('applied');
  const ended = await refunds.get('refund-1');
  expect(await callbacks.receive(news)).toBe('duplicate');
  expect(await callbacks.receive({ ...news, status: 'confirmed' })).toBe('ignored');

  expect(refunds.writes).toBe(1);
  expect(await refunds.get('refund-1')).toEqual(ended);
  expect(ended).toMatchObject({ status: 'failed', error: 'bad address', history: [{ status: 'failed' }] });
});

test('a delivery that comes before the create is recorded is not ready; its retry is applied', async () => {
  await invoices.create(invoice('order-1', { phase: 'sending', status: null }));

  await expect(callbacks.receive(invoiceNews('pending'))).rejects.toBeInstanceOf(NotReadyError);
  expect(invoices.writes).toBe(0);

  const record = (await invoices.get('order-1'))!;
  await invoices.update({ ...record, phase: 'sent', status: 'created', version: 2 }, 1);
  expect(await callbacks.receive(invoiceNews('pending'))).toBe('applied');
});

test('news for a record whose outbox is full is answered 503, never a 4xx, and nothing is written', async () => {
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

  const refused = callbacks.receive(invoiceNews('processing'));
  await expect(refused).rejects.toBeInstanceOf(NotReadyError);
  expect(toErrorResponse(await refused.catch((error: unknown) => error)).status).toBe(503);
  expect(invoices.writes).toBe(0);
  expect((await invoices.get('order-1'))?.status).toBe('created');
});
