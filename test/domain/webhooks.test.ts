import { InProgressError } from '../../domain/errors';
import type { InvoiceRecord } from '../../domain/model';
import type { Delivery } from '../../domain/webhook-model';
import type { DeliveryStore } from '../../domain/ports';
import { ClaimedRecords } from '../../domain/records';
import {
  carriedOutbox,
  eventId,
  invoiceEvents,
  OUTBOX_CAP,
  OUTBOX_CAP_AT_TAKEOVER,
  recordAsOf,
  withEvents,
} from '../../domain/webhooks';
import { resend, retryDelayMs, RETRY_SCHEDULE } from '../../domain/webhook-deliveries';
import { MemoryStore } from '../support/memory-store';
import { sentInvoice } from '../support/records';

const base = sentInvoice('order-1');

test('each change of status or exception makes one event, with a seq that grows and an id from it', () => {
  const awaiting = withEvents(invoiceEvents, base, 1);
  expect(awaiting.outbox?.pending.map((event) => [event.type, event.seq])).toEqual([
    ['invoice.awaiting_payment', 1],
  ]);
  // The same state again makes nothing: a replayed write cannot add an event.
  expect(withEvents(invoiceEvents, awaiting, 2)).toBe(awaiting);
  const partial = withEvents(invoiceEvents, { ...awaiting, payment: { currency: 'BTC', amount: '0.1' } }, 3);
  const paidOver = withEvents(
    invoiceEvents,
    { ...partial, status: 'confirmed', payment: { currency: 'BTC', amount: '2', coverage: 'over' } },
    4,
  );
  expect(paidOver.outbox?.pending.map((event) => [event.type, event.seq, event.id])).toEqual([
    ['invoice.awaiting_payment', 1, eventId('invoice', 'order-1', 0, 1)],
    ['invoice.exception', 2, eventId('invoice', 'order-1', 0, 2)],
    ['invoice.paid', 3, eventId('invoice', 'order-1', 0, 3)],
    ['invoice.exception', 4, eventId('invoice', 'order-1', 0, 4)],
  ]);
  // An event keeps what may change, not the record: no request, no history but its length, no outbox.
  expect(Object.keys(paidOver.outbox!.pending[2].state)).not.toEqual(
    expect.arrayContaining(['request', 'history', 'outbox']),
  );
});

test('an event gives back the record as its change left it, whatever changed since but the request', () => {
  const request = { foreignId: 'order-1', title: 'Tea' };
  const paid = withEvents(
    invoiceEvents,
    {
      ...base,
      request,
      status: 'confirmed',
      payment: { currency: 'BTC', amount: '1', coverage: 'exact' },
      history: [{ status: 'confirmed', at: 5, source: 'callback' }],
      updatedAt: 5,
    } as InvoiceRecord,
    5,
  );
  const [event] = paid.outbox!.pending;
  const later: InvoiceRecord = {
    ...paid,
    payment: { currency: 'BTC', amount: '1.5', coverage: 'over', late: true },
    history: [...paid.history, { status: 'confirmed', at: 9, source: 'lookup' }],
    refunds: [{ foreignId: 'r-1', debitedAmount: '1', currency: 'BTC', state: 'pending', createdAt: 9 }],
    updatedAt: 9,
  };
  const { outbox: _outbox, ...asPaid } = paid;
  expect(recordAsOf(later, event)).toEqual(asPaid);
});

test('a claim that takes a record over keeps the request and history its waiting events were made with', async () => {
  const store = new MemoryStore<InvoiceRecord>((record) => record.updatedAt);
  const timing = { now: () => 10, leaseMs: 45_000, waitMs: 0, pollMs: 100 };
  const own = { attempt: 1, invoice: null, payment: null, cancelled: false };
  const invoices = new ClaimedRecords(store, timing, 'Invoice', own, invoiceEvents);
  const first = { foreignId: 'order-1', title: 'First' } as unknown as InvoiceRecord['request'];
  const { record } = await invoices.claim(first, { account: 'shared', unpinned: 'shared' });
  await invoices.save(record, { ...record, phase: 'rejected', error: 'No', history: [] });
  const refused = (await store.get('order-1'))!;
  const [failed] = refused.outbox!.pending;
  expect(failed.type).toBe('invoice.failed');

  const second = { foreignId: 'order-1', title: 'Second' } as unknown as InvoiceRecord['request'];
  const taken = await invoices.claim(second, { account: 'shared', unpinned: 'shared' });
  expect(taken.owned).toBe(true);
  const carried = taken.record.outbox!.pending[0];
  expect(carried.id).toBe(failed.id);
  expect(recordAsOf(taken.record, carried)).toMatchObject({ request: first, phase: 'rejected', error: 'No' });
});

test('an outbox holds at most OUTBOX_CAP events: past it a change waits for the dispatcher, and so does a takeover past a few', () => {
  const announced = { status: 'awaiting_payment', exception: null };
  let record: InvoiceRecord = { ...base, outbox: { seq: 0, announced, pending: [] } };
  // Each turn makes one event: the exception set, then cleared.
  for (let i = 0; i < OUTBOX_CAP; i++) {
    const payment = i % 2 === 0 ? { currency: 'BTC', amount: '0.1' } : null;
    record = withEvents(invoiceEvents, { ...record, payment }, i);
  }
  expect(record.outbox!.pending).toHaveLength(OUTBOX_CAP);
  expect(() =>
    withEvents(
      invoiceEvents,
      { ...record, payment: record.payment ? null : { currency: 'BTC', amount: '0.1' } },
      99,
    ),
  ).toThrow(InProgressError);
  expect(() => carriedOutbox(record)).toThrow(InProgressError);
  const few = {
    ...record,
    outbox: { ...record.outbox!, pending: record.outbox!.pending.slice(0, OUTBOX_CAP_AT_TAKEOVER) },
  };
  expect(carriedOutbox(few)!.pending).toHaveLength(OUTBOX_CAP_AT_TAKEOVER);
});

test('an event id is the same for the same record and seq, and another for a record made at another time', () => {
  const [event] = withEvents(invoiceEvents, base, 1).outbox!.pending;
  expect(withEvents(invoiceEvents, base, 2).outbox!.pending[0].id).toBe(event.id);
  // The same foreign_id freed and claimed again, or used in another deployment: a receiver must not drop it.
  const again = withEvents(invoiceEvents, { ...base, createdAt: 1 }, 1).outbox!.pending[0];
  expect(again.seq).toBe(event.seq);
  expect(again.id).not.toBe(event.id);
});

test('a record written while events were off announces only its changes once they are on', async () => {
  const store = new MemoryStore<InvoiceRecord>((record) => record.updatedAt);
  await store.create({ ...base, status: 'confirmed' });
  const timing = { now: () => 10, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
  const own = { attempt: 1, invoice: null, payment: null, cancelled: false };
  const invoices = new ClaimedRecords(store, timing, 'Invoice', own, invoiceEvents);
  await invoices.markSwept('order-1');
  // An old order is not announced as newly paid by the first write after the switch.
  expect((await store.get('order-1'))!.outbox?.pending ?? []).toEqual([]);
  await invoices.mutate('order-1', (current) => ({
    ...current,
    payment: { currency: 'BTC', amount: '2', coverage: 'over' },
  }));
  const pending = (await store.get('order-1'))!.outbox!.pending;
  expect(pending.map(({ type, seq }) => [type, seq])).toEqual([['invoice.exception', 1]]);
});

test('retries start in seconds, back off to hourly, with jitter, and scale', () => {
  expect(retryDelayMs(RETRY_SCHEDULE, 1, 1)).toBe(5_000);
  expect(retryDelayMs(RETRY_SCHEDULE, 1, 0)).toBe(2_500);
  expect(retryDelayMs(RETRY_SCHEDULE, 30, 1)).toBe(3_600_000);
  expect(retryDelayMs({ ...RETRY_SCHEDULE, scale: 0.01 }, 1, 1)).toBe(50);
});

test('a re-send that keeps losing its compare-and-set gives up with "in progress" instead of looping', async () => {
  let reads = 0;
  const busy = {
    get: async (id: string) => {
      reads += 1;
      // A loop with no end is cut short here, so that it fails the test instead of hanging it.
      if (reads > 100) throw new Error('still re-sending');
      return { id, version: reads } as Delivery;
    },
    update: async () => false,
  } as unknown as DeliveryStore;
  await expect(resend(busy, 'default', 'evt_busy', 1)).rejects.toBeInstanceOf(InProgressError);
  expect(reads).toBe(5);
});

test("an event waiting while the service extends the invoice's expiry keeps the expiry it was made with", () => {
  const details = { id: 7, url: 'u', address: 'a', tag: null, amount: '1' } as InvoiceRecord['invoice'];
  const awaiting = withEvents(
    invoiceEvents,
    { ...base, status: 'pending', invoice: { ...details!, releaseAt: 900 } },
    1,
  );
  const [event] = awaiting.outbox!.pending;
  // A payment is seen: the service moves the expiry to a day later, before the first event was moved out.
  const confirming = withEvents(
    invoiceEvents,
    { ...awaiting, status: 'processing', invoice: { ...details!, releaseAt: 86_400 } },
    2,
  );
  expect(recordAsOf(confirming, event).invoice?.releaseAt).toBe(900);
  expect(recordAsOf(confirming, confirming.outbox!.pending[1]).invoice?.releaseAt).toBe(86_400);
  expect(recordAsOf(confirming, event)).not.toHaveProperty('releaseAt');
});
