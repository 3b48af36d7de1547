// One dispatcher, two stores (issue 33): each store's events go to its own endpoint, signed with its own secret, in
// seq order per order, and a store whose endpoint hangs holds no other store's back. The dispatcher and the senders
// are the real ones, over real HTTP to verifying receivers; the records and deliveries are kept in memory.
import { NotFoundError } from '../../domain/errors';
import { type InvoiceRecord } from '../../domain/model';
import { outboxListedAt, type Delivery, type WebhookProgress } from '../../domain/webhook-model';
import type { DeliveryStore, DueWork, OutboxRead, OutboxSource } from '../../domain/ports';
import { DEFAULT_STORE_ID, type StoreAccount, type StoreId } from '../../domain/stores';
import { deliveryIdOf, invoiceEvents, withEvents } from '../../domain/webhooks';
import { resend, resendFailed, RETRY_SCHEDULE, type DispatchOptions } from '../../domain/webhook-deliveries';
import { WebhookDispatcher } from '../../domain/webhook-dispatcher';
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { HttpWebhookSender } from '../../webhooks/sender';
import { newWebhookSecret } from '../../webhooks/signing';
import { sentInvoice } from '../support/records';
import { StoreWebhookEndpoints } from '../../webhooks/store-senders';
import { noWake } from '../../webhooks/wake';
import { startSilentEndpoint, type SilentEndpoint } from '../support/silent-endpoint';

const OTHER = 'shop-2';

/** A store's invoices in memory, with the dispatcher's progress beside each and the drain it makes. */
class MemoryOutbox implements OutboxSource {
  readonly records = new Map<string, InvoiceRecord>();
  readonly progress = new Map<string, WebhookProgress>();

  async readOutbox(foreignId: string): Promise<OutboxRead | undefined> {
    const record = this.records.get(foreignId);
    return (
      record && { record: structuredClone(record), progress: structuredClone(this.progress.get(foreignId)) }
    );
  }

  async drainOutbox({ record, progress: asRead }: OutboxRead, progress: WebhookProgress): Promise<boolean> {
    const { foreignId } = record;
    const stored = this.records.get(foreignId);
    if (stored?.version !== record.version) return false;
    if (JSON.stringify(this.progress.get(foreignId)) !== JSON.stringify(asRead)) return false;
    const pending = (record.outbox?.pending ?? []).filter((event) => event.seq > progress.through);
    this.records.set(foreignId, { ...(record as InvoiceRecord), outbox: { ...record.outbox!, pending } });
    this.progress.set(foreignId, structuredClone(progress));
    return true;
  }
}

/** Every store's deliveries in memory, keyed by store and id as the table keys them; `due` as the index lists it. */
class MemoryDeliveries implements DeliveryStore {
  readonly items = new Map<string, Delivery>();

  constructor(
    private readonly outboxes: Map<StoreId, MemoryOutbox>,
    private readonly outboxGraceMs: number,
  ) {}

  async listDue(now: number, limit: number): Promise<DueWork[]> {
    const records: DueWork[] = [...this.outboxes].flatMap(([storeId, outbox]) =>
      [...outbox.records.values()]
        .filter((record) => (outboxListedAt(record.outbox, this.outboxGraceMs) ?? Infinity) <= now)
        .map((record) => ({ storeId, record: 'invoice' as const, foreignId: record.foreignId })),
    );
    const deliveries: DueWork[] = [...this.items.values()]
      .filter((delivery) => delivery.state === 'pending' && delivery.nextAttemptAt <= now)
      .map(({ storeId, id }) => ({ storeId, delivery: id }));
    return [...records, ...deliveries].slice(0, limit);
  }

  async get(storeId: StoreId, id: string): Promise<Delivery | undefined> {
    return structuredClone(this.items.get(`${storeId}#${id}`));
  }

  async create(delivery: Delivery): Promise<boolean> {
    const key = `${delivery.storeId}#${delivery.id}`;
    if (this.items.has(key)) return false;
    this.items.set(key, structuredClone(delivery));
    return true;
  }

  async update(delivery: Delivery, expectedVersion: number): Promise<boolean> {
    const key = `${delivery.storeId}#${delivery.id}`;
    if (this.items.get(key)?.version !== expectedVersion) return false;
    this.items.set(key, structuredClone(delivery));
    return true;
  }

  async listFailed(storeId: StoreId, limit: number): Promise<Delivery[]> {
    return [...this.items.values()]
      .filter((delivery) => delivery.storeId === storeId && delivery.state === 'failed')
      .slice(0, limit);
  }

  of(storeId: StoreId): Delivery[] {
    return [...this.items.values()].filter((delivery) => delivery.storeId === storeId);
  }
}

/** An order whose changes wait in its outbox: awaiting payment, a partial payment, then paid over. */
function orderWithEvents(foreignId: string): InvoiceRecord {
  // Made now: their retry window starts now.
  const at = Date.now();
  const awaiting = withEvents(invoiceEvents, sentInvoice(foreignId), at);
  const partial = withEvents(
    invoiceEvents,
    { ...awaiting, payment: { currency: 'BTC', amount: '0.1' } } as InvoiceRecord,
    at + 1,
  );
  return withEvents(
    invoiceEvents,
    { ...partial, status: 'confirmed', payment: { currency: 'BTC', amount: '2', coverage: 'over' } },
    at + 2,
  );
}

/** The body the test's receivers read: the event's id, type and sequence, and its order. */
const payloadOf: ConstructorParameters<typeof WebhookDispatcher>[3] = (_subject, record, event) =>
  JSON.stringify({
    id: event.id,
    type: event.type,
    sequence: event.seq,
    data: { foreign_id: record.foreignId },
  });

interface Rig {
  outboxes: Map<StoreId, MemoryOutbox>;
  deliveries: MemoryDeliveries;
  dispatcher: (options?: Partial<DispatchOptions>) => WebhookDispatcher;
}

/**
 * Two stores' outboxes, holding `orders` each; the other store's account says where its webhooks go, if anywhere.
 * `outboxGraceMs`: how long after its first event the index lists a record (none by default, as the local stack).
 */
function rig(
  orders: string[],
  defaultUrl: string,
  otherWebhook: StoreAccount['webhook'],
  outboxGraceMs = 0,
): Rig {
  const outboxes = new Map([DEFAULT_STORE_ID, OTHER].map((storeId) => [storeId, new MemoryOutbox()]));
  for (const outbox of outboxes.values()) {
    for (const foreignId of orders) outbox.records.set(foreignId, orderWithEvents(foreignId));
  }
  const deliveries = new MemoryDeliveries(outboxes, outboxGraceMs);
  const accounts = {
    get: async (storeId: StoreId): Promise<StoreAccount | undefined> =>
      storeId === OTHER
        ? {
            storeId,
            status: 'active',
            processing: { account: 'shared' },
            unpinned: 'shared',
            webhook: otherWebhook,
          }
        : undefined,
  };
  const defaultSender = new HttpWebhookSender({
    url: defaultUrl,
    secrets: async () => [secrets.default],
    now: Date.now,
  });
  const senders = new StoreWebhookEndpoints(defaultSender, accounts, {
    allowLoopbackHttp: true,
    now: Date.now,
  });
  const dispatcher = (options: Partial<DispatchOptions> = {}) =>
    new WebhookDispatcher(
      (storeId) => {
        const outbox = outboxes.get(storeId)!;
        return { invoice: outbox, refund: outbox };
      },
      deliveries,
      senders,
      payloadOf,
      {
        now: Date.now,
        timeLeftMs: () => 60_000,
        sendTimeoutMs: 2_000,
        leaseMs: 5_000,
        outboxGraceMs,
        // No retry comes due within a test.
        schedule: { ...RETRY_SCHEDULE, firstMs: 600_000 },
        batch: 100,
        parallel: 4,
        random: () => 0.5,
        onGaveUp: () => undefined,
        wake: noWake,
        ...options,
      },
    );
  return { outboxes, deliveries, dispatcher };
}

const secrets = { default: newWebhookSecret(), [OTHER]: newWebhookSecret() };
let receivers: Record<string, WebhookReceiver>;
let hung: SilentEndpoint;
/** Answers every event 500. */
let refusing: WebhookReceiver;

beforeAll(async () => {
  receivers = {
    default: await startWebhookReceiver(secrets.default),
    [OTHER]: await startWebhookReceiver(secrets[OTHER]),
  };
  hung = await startSilentEndpoint();
  refusing = await startWebhookReceiver(secrets.default, { answer: () => 500 });
});
afterAll(async () => {
  await Promise.all(
    [...Object.values(receivers), refusing].map((receiver) => receiver.close()).concat(hung.close()),
  );
});
beforeEach(() => {
  for (const receiver of Object.values(receivers)) receiver.received.length = 0;
});

const ORDERS = ['order-1', 'order-2', 'order-3'];
/** Its events, in seq order: awaiting payment, the exception set, paid, the exception cleared. */
const SEQUENCES = orderWithEvents('order-0').outbox!.pending.map((event) => event.seq);
const EVENTS = ORDERS.length * SEQUENCES.length;

test("each store's events go to its own endpoint alone, signed with its own secret, in order per order", async () => {
  const { outboxes, deliveries, dispatcher } = rig(ORDERS, receivers.default.url, {
    url: receivers[OTHER].url,
    secrets: async () => [secrets[OTHER]],
  });
  const report = await dispatcher().run();

  // Every event of both stores was answered 2xx at its first attempt: the receivers verify each signature with
  // their own store's secret (another's would get 401), so each store's were signed with its own. Delivered at
  // once, an event leaves no delivery item; its record's progress names the last one.
  expect(report).toEqual({ moved: 0, delivered: 2 * EVENTS, retrying: 0, failed: 0 });
  for (const storeId of [DEFAULT_STORE_ID, OTHER]) {
    expect(deliveries.of(storeId)).toEqual([]);
    for (const foreignId of ORDERS) {
      expect(outboxes.get(storeId)!.records.get(foreignId)!.outbox!.pending).toEqual([]);
      expect(outboxes.get(storeId)!.progress.get(foreignId)).toEqual({
        through: SEQUENCES.length,
        delivered: { seq: SEQUENCES.length, at: expect.any(Number) },
      });
    }
  }
  for (const storeId of [DEFAULT_STORE_ID, OTHER]) {
    const received = receivers[storeId].received;
    // Its own events, each once, and nothing of the other store's.
    expect(new Set(received.map((event) => event.id)).size).toBe(EVENTS);
    for (const foreignId of ORDERS) {
      const own = received.filter((event) => JSON.parse(event.body).data.foreign_id === foreignId);
      expect(own.map((event) => event.sequence)).toEqual(SEQUENCES);
    }
  }
  // The same orders in both stores: the other store's events have ids of their own, the default store's are the
  // events' own (as before stores).
  const defaultIds = new Set(receivers.default.received.map((event) => event.id));
  for (const event of receivers[OTHER].received) expect(defaultIds.has(event.id)).toBe(false);
  const [first] = receivers.default.received;
  expect(receivers[OTHER].received.map((event) => event.id)).toContain(deliveryIdOf(OTHER, first.id));
});

test("a store whose endpoint hangs holds none of another store's deliveries back", async () => {
  const { deliveries, dispatcher } = rig(ORDERS, receivers.default.url, {
    url: hung.url,
    secrets: async () => [secrets[OTHER]],
  });
  // Fewer senders than orders: the hung store's orders take their turns between the default store's.
  await dispatcher({ parallel: 2 }).run();

  expect(deliveries.of(DEFAULT_STORE_ID)).toEqual([]);
  expect(receivers.default.received).toHaveLength(EVENTS);
  // Each hung order's first event was tried once, timed out, and waits for its retry; the rest wait behind it.
  const waiting = deliveries.of(OTHER);
  expect(waiting).toHaveLength(EVENTS);
  expect(waiting.every((delivery) => delivery.state === 'pending')).toBe(true);
  expect(
    waiting.filter((delivery) => delivery.lastAttempt).map((delivery) => delivery.lastAttempt?.error),
  ).toEqual(Array(ORDERS.length).fill('timeout'));
});

test('a store with no endpoint records no deliveries: its events leave the outbox as with webhooks off', async () => {
  const { outboxes, deliveries, dispatcher } = rig(ORDERS, receivers.default.url, undefined);
  const report = await dispatcher().run();

  expect(receivers.default.received).toHaveLength(EVENTS);
  expect(deliveries.of(OTHER)).toEqual([]);
  for (const record of outboxes.get(OTHER)!.records.values()) expect(record.outbox?.pending).toEqual([]);
  expect(report).toMatchObject({ moved: 0, delivered: EVENTS });
});

test("a delivery whose store's endpoint was removed since fails its attempts, to be re-sent once it has one", async () => {
  const { deliveries, dispatcher } = rig([], receivers.default.url, undefined);
  // Made while the store had an endpoint.
  await deliveries.create({
    id: deliveryIdOf(OTHER, 'evt_000000000000000000000000'),
    storeId: OTHER,
    type: 'invoice.paid',
    seq: 1,
    subject: 'invoice',
    foreignId: 'order-1',
    recordCreatedAt: 0,
    body: '{}',
    createdAt: 0,
    state: 'pending',
    attempts: 3,
    retryFrom: 0,
    nextAttemptAt: 0,
    attemptUntil: null,
    lastAttempt: null,
    deliveredAt: null,
    version: 1,
  });
  const gaveUp: Delivery[] = [];
  // Its retry window is over: the attempt with no endpoint is its last.
  await dispatcher({ onGaveUp: (delivery) => gaveUp.push(delivery) }).run();

  const [failed] = deliveries.of(OTHER);
  expect(failed).toMatchObject({ state: 'failed', lastAttempt: { status: null, error: 'no endpoint' } });
  expect(gaveUp.map((delivery) => delivery.storeId)).toEqual([OTHER]);
  expect(receivers[OTHER].received).toEqual([]);
});

test('a store that cannot be read keeps its events as deliveries that back off, holds no other store back, and fails the run loudly', async () => {
  const { outboxes, deliveries, dispatcher } = rig(ORDERS, receivers.default.url, undefined);
  const unknown = new MemoryOutbox();
  unknown.records.set('order-1', orderWithEvents('order-1'));
  outboxes.set('shop-gone', unknown);
  outboxes.delete(OTHER);

  await expect(dispatcher().run()).rejects.toThrow('Some webhook work failed');
  expect(receivers.default.received).toHaveLength(EVENTS);
  // Kept as deliveries, none sent; the first was tried and waits for its retry, as a refusing endpoint's would, so
  // that its work does not stay at the head of the due list, ahead of other stores'.
  const kept = deliveries.of('shop-gone');
  expect(kept.map((delivery) => delivery.seq)).toEqual(SEQUENCES);
  expect(kept.every((delivery) => delivery.state !== 'delivered')).toBe(true);
  expect(kept[0].lastAttempt).toMatchObject({
    status: null,
    error: expect.stringMatching(/could not be read/),
  });
  expect(kept[0].nextAttemptAt).toBeGreaterThan(Date.now() + 60_000);
  expect(unknown.records.get('order-1')!.outbox!.pending).toEqual([]);
});

test("a store's re-sends reach its own deliveries only: another store's id is not found", async () => {
  // Both endpoints refuse: every event waits as a delivery.
  const { deliveries, dispatcher } = rig(['order-1'], refusing.url, {
    url: refusing.url,
    secrets: async () => [secrets[OTHER]],
  });
  await dispatcher().run();
  const [own] = deliveries.of(DEFAULT_STORE_ID);
  const [others] = deliveries.of(OTHER);

  await expect(resend(deliveries, OTHER, own.id, Date.now())).rejects.toBeInstanceOf(NotFoundError);
  await expect(resend(deliveries, DEFAULT_STORE_ID, others.id, Date.now())).rejects.toBeInstanceOf(
    NotFoundError,
  );
  expect((await resend(deliveries, OTHER, others.id, Date.now())).state).toBe('pending');

  for (const delivery of deliveries.of(DEFAULT_STORE_ID)) {
    await deliveries.update(
      { ...delivery, state: 'failed', version: delivery.version + 1 },
      delivery.version,
    );
  }
  expect(await resendFailed(deliveries, OTHER, 100, Date.now())).toEqual({ resent: 0, more: false });
  expect(await resendFailed(deliveries, DEFAULT_STORE_ID, 100, Date.now())).toEqual({
    resent: SEQUENCES.length,
    more: false,
  });
});

/** The order's record with one more event: the next write of a change its outbox has not announced yet. */
function withOneMoreEvent(outbox: MemoryOutbox, foreignId: string): number {
  const record = outbox.records.get(foreignId)!;
  const announced = { ...record.outbox!.announced, status: 'confirming' };
  const next = withEvents(
    invoiceEvents,
    { ...record, version: record.version + 1, outbox: { ...record.outbox!, announced } },
    Date.now(),
  );
  outbox.records.set(foreignId, next);
  expect(next.outbox!.pending.length).toBe(record.outbox!.pending.length + 1);
  return next.outbox!.seq;
}

/** As the table's stream and index work in AWS: the index lists a record a while after its first event. */
const GRACE_MS = 30_000;

const woken = (foreignId: string): DueWork[] => [{ storeId: DEFAULT_STORE_ID, record: 'invoice', foreignId }];

test('an event that fails is parked as a delivery with those after it; later events wait behind them, in order, and go at once again when they are delivered', async () => {
  let refuse = true;
  const shop = await startWebhookReceiver(secrets.default, { answer: () => (refuse ? 500 : 200) });
  try {
    const { outboxes, deliveries, dispatcher } = rig(['order-1'], shop.url, undefined);
    const outbox = outboxes.get(DEFAULT_STORE_ID)!;

    expect(await dispatcher().run(woken('order-1'))).toEqual({
      moved: 4,
      delivered: 0,
      retrying: 1,
      failed: 0,
    });
    const parked = deliveries.of(DEFAULT_STORE_ID);
    expect(parked.map(({ seq, state, attempts }) => [seq, state, attempts])).toEqual([
      [1, 'pending', 1],
      [2, 'pending', 0],
      [3, 'pending', 0],
      [4, 'pending', 0],
    ]);
    expect(parked[0].lastAttempt).toMatchObject({ status: 500 });
    expect(outbox.records.get('order-1')!.outbox!.pending).toEqual([]);
    expect(outbox.progress.get('order-1')).toEqual({ through: 4, parked: 4 });

    // The shop is back, but event 5 waits behind the parked ones: none of them is due yet.
    refuse = false;
    const fifth = withOneMoreEvent(outbox, 'order-1');
    await dispatcher().run(woken('order-1'));
    expect(shop.received).toEqual([]);
    expect(deliveries.of(DEFAULT_STORE_ID).map(({ seq }) => seq)).toEqual([1, 2, 3, 4, fifth]);
    expect(outbox.progress.get('order-1')).toEqual({ through: fifth, parked: fifth });

    // Their retries come due: all go, in order.
    const later = Date.now() + 3_600_000;
    await dispatcher({ now: () => later }).run();
    expect(shop.received.map(({ sequence }) => sequence)).toEqual([1, 2, 3, 4, fifth]);
    expect(deliveries.of(DEFAULT_STORE_ID).every(({ state }) => state === 'delivered')).toBe(true);

    // The next event goes at once, with no delivery item: the last parked one is delivered.
    const sixth = withOneMoreEvent(outbox, 'order-1');
    await dispatcher().run(woken('order-1'));
    expect(shop.received.map(({ sequence }) => sequence)).toEqual([1, 2, 3, 4, fifth, sixth]);
    expect(deliveries.of(DEFAULT_STORE_ID)).toHaveLength(fifth);
    expect(outbox.progress.get('order-1')).toEqual({
      through: sixth,
      delivered: { seq: sixth, at: expect.any(Number) },
    });
  } finally {
    await shop.close();
  }
});

test('a run that dies between its sends and its drain loses nothing: the next run sends the events again, under the same ids', async () => {
  const { outboxes, deliveries, dispatcher } = rig(['order-1'], receivers.default.url, undefined);
  const outbox = outboxes.get(DEFAULT_STORE_ID)!;
  const drain = outbox.drainOutbox.bind(outbox);
  outbox.drainOutbox = async () => {
    throw new Error('killed before its drain');
  };
  await expect(dispatcher().run(woken('order-1'))).rejects.toThrow('Some webhook work failed');
  const first = receivers.default.received.map(({ id, sequence }) => [id, sequence]);
  expect(first.map(([, sequence]) => sequence)).toEqual(SEQUENCES);
  expect(outbox.records.get('order-1')!.outbox!.pending).toHaveLength(SEQUENCES.length);

  outbox.drainOutbox = drain;
  // The record is still due: a scheduled run finds it.
  await dispatcher().run();
  expect(receivers.default.received.map(({ id, sequence }) => [id, sequence])).toEqual([...first, ...first]);
  expect(outbox.records.get('order-1')!.outbox!.pending).toEqual([]);
  expect(deliveries.of(DEFAULT_STORE_ID)).toEqual([]);
});

test('runs at once for the same records keep each one in order: no event is sent before every earlier one was delivered', async () => {
  /** Per order, the seqs answered 2xx so far, marked before the answer leaves. */
  const acknowledged = new Map<string, Set<number>>();
  const early: string[] = [];
  const shop = await startWebhookReceiver(secrets.default, {
    answer: async (event) => {
      const { foreign_id: foreignId } = JSON.parse(event.body).data as { foreign_id: string };
      const done = acknowledged.get(foreignId) ?? new Set<number>();
      acknowledged.set(foreignId, done);
      for (let seq = 1; seq < event.sequence; seq++) {
        if (!done.has(seq)) early.push(`${foreignId} ${event.sequence} before ${seq}`);
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20));
      done.add(event.sequence);
      return 200;
    },
  });
  try {
    // The check catches an event sent before an earlier one was delivered.
    const probe = new HttpWebhookSender({
      url: shop.url,
      secrets: async () => [secrets.default],
      now: Date.now,
    });
    const body = JSON.stringify({
      id: 'evt_probe',
      type: 'invoice.paid',
      sequence: 2,
      data: { foreign_id: 'probe' },
    });
    expect(await probe.send({ id: 'evt_probe', body }, 2_000)).toMatchObject({ status: 200 });
    expect(early).toEqual(['probe 2 before 1']);
    early.length = 0;

    const { outboxes, deliveries, dispatcher } = rig(ORDERS, shop.url, undefined);
    const outbox = outboxes.get(DEFAULT_STORE_ID)!;
    const runs = Promise.all(
      [0, 1, 2].map(async (index) => {
        await new Promise((resolve) => setTimeout(resolve, index * 15));
        return dispatcher().run(ORDERS.flatMap(woken));
      }),
    );
    // Events made while the runs go, each waking a run of its own.
    const made = Promise.all(
      ORDERS.map(async (foreignId) => {
        await new Promise((resolve) => setTimeout(resolve, 10));
        withOneMoreEvent(outbox, foreignId);
        await dispatcher().run(woken(foreignId));
      }),
    );
    await Promise.all([runs, made]);
    await dispatcher().run();

    expect(early).toEqual([]);
    for (const foreignId of ORDERS) {
      const seqs = outbox.records.get(foreignId)!.outbox!.seq;
      expect([...acknowledged.get(foreignId)!].sort((a, b) => a - b)).toEqual(
        Array.from({ length: seqs }, (_, index) => index + 1),
      );
      expect(outbox.records.get(foreignId)!.outbox!.pending).toEqual([]);
    }
    expect(deliveries.of(DEFAULT_STORE_ID)).toEqual([]);
  } finally {
    await shop.close();
  }
});

// Review finding: a first attempt from the outbox holds no lease, so a scheduled run that comes while the shop is
// slow to answer sends the same event again beside it. A parked delivery's attempt is leased; this one is not.
test('a scheduled run while a first attempt is under way (a slow shop) starts no second send of the event beside it', async () => {
  const underWay = new Map<string, number>();
  let mostAtOnce = 0;
  const shop = await startWebhookReceiver(secrets.default, {
    answer: async (event) => {
      const now = (underWay.get(event.id) ?? 0) + 1;
      underWay.set(event.id, now);
      mostAtOnce = Math.max(mostAtOnce, now);
      // Slow, but well within the send timeout.
      await new Promise((resolve) => setTimeout(resolve, 300));
      underWay.set(event.id, (underWay.get(event.id) ?? 1) - 1);
      return 200;
    },
  });
  try {
    const { dispatcher } = rig(['order-1'], shop.url, undefined, GRACE_MS);
    const streamRun = dispatcher().run(woken('order-1'));
    // The schedule's run comes while the stream's run waits on the shop's answer to the first event.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const scheduledRun = dispatcher().run();
    await Promise.all([streamRun, scheduledRun]);
    expect(shop.received.length).toBeGreaterThan(0);
    expect(mostAtOnce).toBe(1);
  } finally {
    await shop.close();
  }
});

// Review finding: 0.4.0 moved every event out of the outbox into a delivery item before its first attempt, and kept
// no progress beside the record. After the upgrade to 0.5.0 (no step of its own), a record whose earlier event is
// still retrying as a 0.4.0 delivery has no `parked` mark: its next event goes at once, before the earlier one.
test('after the upgrade from 0.4.0, a record whose earlier event still retries as a delivery item sends its next event behind it', async () => {
  const shop = await startWebhookReceiver(secrets.default);
  try {
    const { outboxes, deliveries, dispatcher } = rig(['order-1'], shop.url, undefined);
    const outbox = outboxes.get(DEFAULT_STORE_ID)!;
    const record = outbox.records.get('order-1')!;
    const [first, ...rest] = record.outbox!.pending;
    // As 0.4.0 left it: the first event moved out to a delivery, failed twice and backing off for an hour.
    const now = Date.now();
    await deliveries.create({
      id: deliveryIdOf(DEFAULT_STORE_ID, first.id),
      storeId: DEFAULT_STORE_ID,
      type: first.type,
      seq: first.seq,
      subject: 'invoice',
      foreignId: 'order-1',
      recordCreatedAt: record.createdAt,
      body: payloadOf('invoice', record, first, DEFAULT_STORE_ID),
      createdAt: first.at,
      state: 'pending',
      attempts: 2,
      retryFrom: first.at,
      nextAttemptAt: now + 3_600_000,
      attemptUntil: null,
      lastAttempt: { at: now, status: 500, error: null },
      deliveredAt: null,
      version: 3,
    });
    outbox.records.set('order-1', { ...record, outbox: { ...record.outbox!, pending: rest } });
    expect(outbox.progress.get('order-1')).toBeUndefined();

    await dispatcher().run(woken('order-1'));
    // Event 1 has not been delivered yet: none of the later ones may reach the shop before it.
    expect(shop.received.map(({ sequence }) => sequence)).toEqual([]);
    // Its retry comes due: then all go, in order.
    const later = Date.now() + 7_200_000;
    await dispatcher({ now: () => later }).run();
    expect(shop.received.map(({ sequence }) => sequence)).toEqual([1, 2, 3, 4]);
  } finally {
    await shop.close();
  }
});

test('a record whose stream run died is sent by a listing run once the grace has passed; a stream run too late to finish by then leaves it to that run', async () => {
  const shop = await startWebhookReceiver(secrets.default);
  try {
    const { outboxes, dispatcher } = rig(['order-1'], shop.url, undefined, GRACE_MS);
    const outbox = outboxes.get(DEFAULT_STORE_ID)!;
    const listedAt = outboxListedAt(outbox.records.get('order-1')!.outbox, GRACE_MS)!;
    const nothing = { moved: 0, delivered: 0, retrying: 0, failed: 0 };

    // The stream's run died before it sent anything. Within the grace, a listing run leaves the record to it.
    expect(await dispatcher().run()).toEqual(nothing);

    // A stream run (a retried batch, say) that could not finish by then sends nothing, and asks for a run then.
    const wakes: number[] = [];
    const wake = { at: async (times: readonly number[]) => void wakes.push(...times) };
    expect(await dispatcher({ now: () => listedAt - 1_000, wake }).run(woken('order-1'))).toEqual(nothing);
    expect(wakes).toEqual([Math.ceil(listedAt / 1000) * 1000]);
    expect(shop.received).toEqual([]);

    // Once the grace has passed, a listing run sends the events, in order, and drops them from the outbox.
    const report = await dispatcher({ now: () => listedAt }).run();
    expect(report).toEqual({ ...nothing, delivered: 4 });
    expect(shop.received.map(({ sequence }) => sequence)).toEqual([1, 2, 3, 4]);
    expect(outbox.records.get('order-1')!.outbox!.pending).toEqual([]);
  } finally {
    await shop.close();
  }
});

test("a stream run woken by a parking run's own mark leaves the record to it: the failed attempt is not parked again uncounted", async () => {
  const { outboxes, deliveries, dispatcher } = rig(['order-1'], receivers.default.url, undefined, GRACE_MS);
  const outbox = outboxes.get(DEFAULT_STORE_ID)!;
  // A listing run has said that it parks events 1 to 4 (its mark, which the stream carries), and makes their items.
  outbox.progress.set('order-1', { through: 0, parked: 4 });

  expect(await dispatcher().run(woken('order-1'))).toEqual({
    moved: 0,
    delivered: 0,
    retrying: 0,
    failed: 0,
  });
  expect(deliveries.of(DEFAULT_STORE_ID)).toEqual([]);
  expect(outbox.records.get('order-1')!.outbox!.pending).toHaveLength(4);
});
