// Webhooks to the shop: which events a record's change makes (written into the record's outbox by the same
// conditional write), and the dispatcher that delivers them, at least once, in seq order.
import { createHash } from 'node:crypto';
import { InProgressError, NotFoundError } from './errors';
import {
  outboxListedAt,
  type ClaimedRecord,
  type Delivery,
  type DeliveryAttempt,
  type EventState,
  type InvoiceRecord,
  type Outbox,
  type OutboxEvent,
  type RefundRecord,
  type WebhookEventType,
  type WebhookProgress,
  type WebhookSubject,
} from './model';
import { invoiceOutcome, type InvoiceStatusName } from './outcome';
import type {
  DeliveryStore,
  DispatcherWake,
  DueWork,
  OutboxRead,
  OutboxSource,
  StoreWebhookSenders,
  WebhookSender,
} from './ports';
import { isFinal } from './status';
import { DEFAULT_STORE_ID, type StoreId } from './stores';

type Announced = Outbox['announced'];

/** How a kind of record is announced: what its events say, and which events a change of that makes. */
export interface EventKind<T> {
  subject: WebhookSubject;
  announced(record: T): Announced;
  types(before: Announced, after: Announced): WebhookEventType[];
}

/** The event each invoice status is announced by; `creating` is announced by none. */
export const INVOICE_STATUS_EVENTS = {
  creating: undefined,
  awaiting_payment: 'invoice.awaiting_payment',
  confirming: 'invoice.confirming',
  paid: 'invoice.paid',
  underpaid: 'invoice.underpaid',
  expired: 'invoice.expired',
  cancelled: 'invoice.cancelled',
  failed: 'invoice.failed',
} as const satisfies Record<InvoiceStatusName, WebhookEventType | undefined>;

/** The event each refund stage is announced by. */
export const REFUND_STAGE_EVENTS = {
  sent: 'refund.sent',
  confirmed: 'refund.confirmed',
  failed: 'refund.failed',
} as const satisfies Record<string, WebhookEventType>;

type RefundStage = keyof typeof REFUND_STAGE_EVENTS;

/**
 * `invoice.<status>` on every change of status (but to `creating`); `invoice.exception` on every change of
 * `exception`, a cleared one too (README: every change of status or exception is pushed).
 */
export const invoiceEvents: EventKind<InvoiceRecord> = {
  subject: 'invoice',
  announced: (record) => {
    const { status, exception } = invoiceOutcome(record);
    return { status, exception };
  },
  types: (before, after) => {
    const statusChanged = before.status !== after.status;
    const statusEvent = statusChanged ? INVOICE_STATUS_EVENTS[after.status as InvoiceStatusName] : undefined;
    const types: WebhookEventType[] = statusEvent ? [statusEvent] : [];
    if ((before.exception ?? null) !== after.exception) types.push('invoice.exception');
    return types;
  },
};

/** `refund.sent` once the service has the withdrawal, then `refund.confirmed` or `refund.failed`. */
export const refundEvents: EventKind<RefundRecord> = {
  subject: 'refund',
  announced: (record) => ({ status: refundStage(record) }),
  types: (before, after) =>
    before.status !== after.status && after.status !== null
      ? [REFUND_STAGE_EVENTS[after.status as RefundStage]]
      : [],
};

function refundStage(record: RefundRecord): RefundStage | null {
  if (record.phase === 'rejected') return 'failed';
  if (record.phase !== 'sent' || record.status === null) return null;
  if (!isFinal(record.status)) return 'sent';
  return record.status === 'confirmed' ? 'confirmed' : 'failed';
}

/** Before any event: what a new record would announce, which makes none. */
const NOTHING_ANNOUNCED: Announced = { status: 'creating', exception: null };

/**
 * Events an outbox holds at most: a record's life makes a handful (status only moves forward), and with these the
 * largest item stays well under DynamoDB's 400 KB (test/store/item-bounds.test.ts). A write that would pass it
 * answers "in progress" until the dispatcher has drained some: a callback answers 503 and comes again, and the
 * sweep looks again, so nothing is lost.
 */
export const OUTBOX_CAP = 8;

/**
 * Events a claim carries over when it takes a record over, each keeping the request it was made with; with more
 * waiting, the claim answers "in progress" until the dispatcher has drained them.
 */
export const OUTBOX_CAP_AT_TAKEOVER = 1;

/**
 * `record` with the events its state makes since the last ones it announced, appended to its outbox. The one
 * place events are made: every write of a claimed record passes through it (domain/records.ts). `previous` is the
 * stored record it replaces: one without an outbox was written while events were off, and what it showed then is
 * taken as announced, so that turning events on announces only the changes made since.
 */
export function withEvents<T extends ClaimedRecord<unknown>>(
  kind: EventKind<T>,
  record: T,
  at: number,
  previous?: T,
): T {
  const announcedBefore = previous ? kind.announced(previous) : NOTHING_ANNOUNCED;
  const outbox = record.outbox ?? { seq: 0, announced: announcedBefore, pending: [] };
  const announced = kind.announced(record);
  const types = kind.types(outbox.announced, announced);
  if (types.length === 0 && sameAnnounced(outbox.announced, announced)) return record;
  // Waits for the dispatcher to drain events: a callback answers 503 and comes again, the sweep looks again.
  if (outbox.pending.length + types.length > OUTBOX_CAP) throw new InProgressError(1);
  const state = eventState(record);
  const events: OutboxEvent[] = types.map((type, index) => {
    const seq = outbox.seq + index + 1;
    return { id: eventId(kind.subject, record.foreignId, record.createdAt, seq), type, seq, at, state };
  });
  return {
    ...record,
    outbox: { seq: outbox.seq + events.length, announced, pending: [...outbox.pending, ...events] },
  };
}

/**
 * What stays put while a record's events wait, so that an event need not keep it: its key and creation time, the
 * request, the history (it only grows: an event keeps its length), and an invoice's details and client secret's
 * hash (set by the create's answer; only the details' expiry moves later, and an event keeps that). Only a claim
 * that takes the record over changes them, and it keeps them in the events it carries.
 */
const STAYS_PUT = ['foreignId', 'createdAt', 'request', 'history', 'invoice', 'clientSecretHash'] as const;

/** What an event keeps of its record: all but what stays put (model.ts, `EventState`). */
function eventState(record: ClaimedRecord<unknown>): EventState {
  const changing: Record<string, unknown> = { ...record };
  for (const field of [...STAYS_PUT, 'outbox', 'version']) delete changing[field];
  // The service's news moves an invoice's expiry later while its earlier events wait: each shows its own.
  const releaseAt = (record as Partial<InvoiceRecord>).invoice?.releaseAt;
  return { ...changing, historyLength: record.history.length, ...(releaseAt != null && { releaseAt }) };
}

/**
 * The outbox a claim carries over when it takes `existing` over: its waiting events keep what stayed put, which
 * the claim replaces. With more than a few waiting, the claim waits for the dispatcher instead ("in progress").
 */
export function carriedOutbox(existing: ClaimedRecord<unknown>): Outbox | undefined {
  const { outbox } = existing;
  if (!outbox || outbox.pending.length === 0) return outbox;
  if (outbox.pending.length > OUTBOX_CAP_AT_TAKEOVER) throw new InProgressError(1);
  const stayed = existing as unknown as Record<string, unknown>;
  const kept = Object.fromEntries(STAYS_PUT.map((field) => [field, stayed[field]]));
  const pending = outbox.pending.map((event) =>
    'request' in event.state ? event : { ...event, state: { ...event.state, ...kept } },
  );
  return { ...outbox, pending };
}

/** The record as it stood when `event` was made: what the event kept, and what stayed put from the record now. */
export function recordAsOf<T extends ClaimedRecord<unknown>>(record: T, event: OutboxEvent): T {
  const { historyLength, releaseAt, ...kept } = event.state;
  const now = record as unknown as Record<string, unknown>;
  const asOf: Record<string, unknown> = { ...kept, version: record.version };
  for (const field of STAYS_PUT) asOf[field] = field in kept ? kept[field] : now[field];
  if (typeof releaseAt === 'number' && asOf.invoice)
    asOf.invoice = { ...(asOf.invoice as object), releaseAt };
  asOf.history = (asOf.history as unknown[]).slice(0, historyLength);
  // An undefined field is left out, as JSON leaves it: a refund has no invoice.
  for (const field in asOf) if (asOf[field] === undefined) delete asOf[field];
  return asOf as T;
}

function sameAnnounced(a: Announced, b: Announced): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  return [...keys].every((key) => (a[key] ?? null) === (b[key] ?? null));
}

/**
 * `evt_` and 24 base64url characters of a hash: the same for the same record and seq, whoever computes it. The
 * record's `createdAt` sets apart a record made again under a freed foreign_id, and another deployment's record.
 */
export function eventId(subject: WebhookSubject, foreignId: string, createdAt: number, seq: number): string {
  const digest = createHash('sha256')
    .update(`${subject}\n${foreignId}\n${createdAt}\n${seq}`)
    .digest('base64url');
  return `evt_${digest.slice(0, 24)}`;
}

export const EVENT_ID = /^evt_[A-Za-z0-9_-]{24}$/;

/**
 * The id a store's event is delivered under (its `webhook-id`): the event's own for the default store, as before
 * stores; for another store one of its own, so that two stores' events never share an id, even for the same
 * foreign_id made in the same millisecond (issue 33).
 */
export function deliveryIdOf(storeId: StoreId, id: string): string {
  if (storeId === DEFAULT_STORE_ID) return id;
  const digest = createHash('sha256').update(`${storeId}\n${id}`).digest('base64url');
  return `evt_${digest.slice(0, 24)}`;
}

/**
 * When attempts are retried: exponential from `firstMs`, capped at `maxMs`, with jitter (each wait between half
 * and all of its step), for `windowMs` from the first attempt; `scale` shrinks every one of them (tests).
 */
export interface RetrySchedule {
  firstMs: number;
  maxMs: number;
  windowMs: number;
  scale: number;
}

export const RETRY_SCHEDULE: RetrySchedule = {
  firstMs: 5_000,
  maxMs: 3_600_000,
  windowMs: 3 * 86_400_000,
  scale: 1,
};

/** The wait after the `attempts`-th failed attempt. */
export function retryDelayMs(schedule: RetrySchedule, attempts: number, random: number): number {
  const step = Math.min(schedule.firstMs * 2 ** Math.min(attempts - 1, 30), schedule.maxMs);
  return Math.round(schedule.scale * step * (0.5 + random / 2));
}

export interface DispatchOptions {
  now: () => number;
  /** Time left in this run (ms). */
  timeLeftMs: () => number;
  /** An endpoint gets this long to answer; it is also what a run keeps in hand before it starts an attempt. */
  sendTimeoutMs: number;
  /** How long a started attempt holds its delivery; longer than an attempt can take. */
  leaseMs: number;
  /**
   * How long after its first event a record's outbox is listed as due (`outboxListedAt`), as the record store was
   * given it. Meanwhile only the run its write woke (`woken`) works on it, and that one starts nothing it cannot
   * finish by then, so that no two runs send the same event at once. Longer than two send timeouts; 0 where runs
   * never overlap (the local stack), and then a woken run has no deadline either.
   */
  outboxGraceMs: number;
  schedule: RetrySchedule;
  /** Due items read at a time. */
  batch: number;
  /** Records delivered to at once; each one's events go one after the other. */
  parallel: number;
  random: () => number;
  /** Told of each delivery that ran out of retries (it names its store). */
  onGaveUp: (delivery: Delivery) => void;
  /** Told of each event delivered, at its first attempt or a later one: the store owner's record of it. */
  onDelivered?: (delivered: DeliveredEvent) => void;
  /** Asked for a run when each retry this run put off comes due. */
  wake: DispatcherWake;
}

/** An event delivered: what names it, never its body. */
export interface DeliveredEvent {
  storeId: StoreId;
  eventId: string;
  type: WebhookEventType;
  subject: WebhookSubject;
  foreignId: string;
  seq: number;
  attempts: number;
  status: number | null;
  at: number;
}

export interface DispatchReport {
  /** Events moved out of an outbox into delivery items, to be retried on the schedule. */
  moved: number;
  delivered: number;
  retrying: number;
  failed: number;
}

/** The JSON body for an event: `{id, type, created_at, sequence, data}` with `data` the view of `record` then. */
export type PayloadOf = (
  subject: WebhookSubject,
  record: ClaimedRecord<unknown>,
  event: OutboxEvent,
) => string;

/** A store's record outboxes, by kind. */
export type OutboxSources = (storeId: StoreId) => Record<WebhookSubject, OutboxSource>;

/** Where a store's account cannot be read: the attempt fails and retries on the schedule, as a refusing endpoint's. */
const UNREADABLE_ACCOUNT: WebhookSender = {
  send: async () => ({ status: null, error: "the store's account could not be read" }),
};

/** Drains tried before a run leaves a busy record to the next run: its events wait in the outbox meanwhile. */
const DRAIN_TRIES = 5;

/** One record's work in a run: its outbox, if it is due, and its due deliveries. */
interface RecordWork {
  storeId: StoreId;
  subject: WebhookSubject;
  foreignId: string;
  outbox: boolean;
  /** Named by the stream (its write woke this run), rather than listed as due. */
  woken: boolean;
  deliveries: Delivery[];
}

/**
 * Delivers the events of record outboxes, and retries the deliveries that are due, until nothing is or time runs
 * low. An event delivered at its first attempt leaves no delivery item: the run sends a record's waiting events in
 * seq order, then one conditional write drops them from its outbox (a crash before it sends them again, under the
 * same ids). The first that fails, and those after it, become delivery items, retried on the schedule, listed and
 * re-sendable; the record's progress then says that its later events wait behind them.
 * One dispatcher serves every store: the due index is the deployment's, and each event goes to its own store's
 * endpoint, signed with that store's secrets. A store with no endpoint has its events dropped, as a deployment with
 * webhooks off makes none; one whose endpoint was removed keeps its deliveries retrying on the normal schedule,
 * then failed, to be re-sent once it has one again.
 */
export class WebhookDispatcher {
  constructor(
    private readonly sources: OutboxSources,
    private readonly deliveries: DeliveryStore,
    private readonly senders: StoreWebhookSenders,
    private readonly payloadOf: PayloadOf,
    private readonly options: DispatchOptions,
  ) {}

  /**
   * `woken`: the records whose writes left events waiting, as the table's stream names them. Such a run delivers
   * those alone, reading no index: retries come due through the wake queue and the schedule's runs.
   */
  async run(woken: DueWork[] = []): Promise<DispatchReport> {
    const report: DispatchReport = { moved: 0, delivered: 0, retrying: 0, failed: 0 };
    const run: RunState = { wakes: new Set(), delivered: new Set(), failures: [] };
    while (this.options.timeLeftMs() > this.options.sendTimeoutMs) {
      const byStream = woken.length > 0;
      const due = byStream ? woken : await this.deliveries.listDue(this.options.now(), this.options.batch);
      if (due.length === 0) break;
      const records = await this.gather(due, run, byStream);
      const progressed = await inParallel(takingTurns(records), this.options.parallel, (work) =>
        this.work(work, report, run),
      );
      // What is due is leased by another run, or waits for an earlier event: the next run takes it. A batch not
      // full was all that was due: what comes due since wakes a run of its own.
      if (byStream || !progressed.some(Boolean) || due.length < this.options.batch) break;
    }
    if (run.wakes.size > 0) await this.options.wake.at([...run.wakes].sort((a, b) => a - b));
    // The rest was done; the run still fails, so that its errors alarm fires and its trigger retries.
    if (run.failures.length > 0) throw new AggregateError(run.failures, 'Some webhook work failed');
    return report;
  }

  /** The due work by record: whether its outbox is due, and its due deliveries (read here). */
  private async gather(due: DueWork[], run: RunState, woken: boolean): Promise<RecordWork[]> {
    const byRecord = new Map<string, RecordWork>();
    const of = (storeId: StoreId, subject: WebhookSubject, foreignId: string): RecordWork => {
      const key = `${storeId}#${subject}#${foreignId}`;
      const work = byRecord.get(key) ?? { storeId, subject, foreignId, outbox: false, woken, deliveries: [] };
      byRecord.set(key, work);
      return work;
    };
    await Promise.all(
      due.map(async (work) => {
        if ('record' in work) {
          of(work.storeId, work.record, work.foreignId).outbox = true;
          return;
        }
        // One store's failure (its account unreadable, say) holds none of the others' work back.
        try {
          const delivery = await this.deliveries.get(work.storeId, work.delivery);
          const queue = delivery && of(delivery.storeId, delivery.subject, delivery.foreignId).deliveries;
          if (queue && !queue.some(({ id }) => id === delivery.id)) queue.push(delivery);
        } catch (error) {
          run.failures.push(error);
        }
      }),
    );
    return [...byRecord.values()];
  }

  /** A record's outbox, then its deliveries in seq order; true if anything was tried. */
  private async work(work: RecordWork, report: DispatchReport, run: RunState): Promise<boolean> {
    let queue = work.deliveries;
    let tried = false;
    if (work.outbox) {
      try {
        const outcome = await this.dispatchOutbox(work, report, run);
        tried = outcome.tried;
        queue = [...queue, ...outcome.parked.filter(({ id }) => !queue.some((due) => due.id === id))];
      } catch (error) {
        run.failures.push(error);
      }
    }
    if (queue.length === 0) return tried;
    queue.sort((a, b) => a.seq - b.seq);
    return (await this.deliverInOrder(queue, report, run)) || tried;
  }

  /**
   * Sends the outbox's events in seq order, each at its first attempt, unless an earlier one waits as a delivery
   * item; then drops them from the outbox with one write. What is not delivered (the first event that failed, and
   * those after it; or those behind a waiting delivery, or those there was no time for) is parked: the record's
   * progress first says so, then each becomes a delivery item (create-if-absent), then the drain drops them. A
   * crash before the drain leaves the events in the outbox, and the record still due: a later run sends them
   * again (the same ids) or parks them again. Answers the deliveries parked, for this run to try in order.
   */
  private async dispatchOutbox(
    work: RecordWork,
    report: DispatchReport,
    run: RunState,
  ): Promise<{ parked: Delivery[]; tried: boolean }> {
    const { storeId, subject, foreignId } = work;
    const source = this.sources(storeId)[subject];
    const read = await source.readOutbox(foreignId);
    if (!read) return { parked: [], tried: false };
    const { record } = read;
    const progress = read.progress ?? { through: 0 };
    const pending = record.outbox?.pending ?? [];
    const events = pending.filter((event) => event.seq > progress.through);
    if (events.length === 0) {
      // Events that a write from a read made before a drain put back: they were handed on already.
      if (pending.length > 0) await this.drain(source, read, progress);
      return { parked: [], tried: pending.length > 0 };
    }
    const last = events[events.length - 1].seq;
    const startBy = this.startBy(work, record.outbox);
    // Another run is parking the record's events (or died doing so, and a listing run finishes it).
    const parking = progress.parked !== undefined && progress.through < progress.parked;
    if (work.woken && (parking || this.options.now() > startBy)) {
      if (!parking) wakeAt(run.wakes, outboxListedAt(record.outbox, this.options.outboxGraceMs)!);
      return { parked: [], tried: false };
    }
    let sender: WebhookSender | undefined;
    try {
      sender = await this.senders.get(storeId);
    } catch (error) {
      // Its events are parked after a failed attempt, and back off: they do not stay at the head of the due list.
      run.failures.push(error);
      sender = UNREADABLE_ACCOUNT;
    }
    if (!sender) {
      await this.drain(source, read, { ...progress, through: last });
      return { parked: [], tried: true };
    }
    // A record 0.4.0 drained keeps no progress, but its earlier events may still retry as delivery items.
    const before = events[0].seq - 1;
    const behind =
      progress.parked !== undefined
        ? await this.waitsBehind(work, record, progress)
        : read.progress === undefined &&
          before > 0 &&
          (await this.waitsBehind(work, record, { through: before, parked: before }));
    const next: WebhookProgress = { ...progress };
    if (!behind) delete next.parked;
    let sent = 0;
    let failure: DeliveryAttempt | undefined;
    let late = false;
    while (!behind && sent < events.length && this.options.timeLeftMs() > this.options.sendTimeoutMs) {
      if ((late = this.options.now() > startBy)) break;
      const delivery = this.newDelivery(storeId, subject, record, events[sent]);
      const answer = await sender.send(delivery, this.options.sendTimeoutMs);
      const at = this.options.now();
      if (!isDelivered(answer)) {
        failure = { at, ...answer };
        break;
      }
      sent += 1;
      report.delivered += 1;
      run.delivered.add(delivery.id);
      next.through = delivery.seq;
      next.delivered = { seq: delivery.seq, at };
      this.delivered(delivery, 1, answer.status, at);
    }
    if (sent === events.length) {
      await this.drain(source, read, { ...next, through: last });
      return { parked: [], tried: true };
    }
    if (late) {
      // The rest is the listing runs' once the index lists it: this run parks none of it beside them.
      if (sent > 0) await this.drain(source, read, next);
      wakeAt(run.wakes, events[sent].at + this.options.outboxGraceMs);
      return { parked: [], tried: sent > 0 };
    }
    // Said first: no later run sends one of the record's events directly while these wait, even if this one dies.
    const marked = await this.drain(source, read, { ...next, parked: last });
    if (!marked) return { parked: [], tried: true };
    const parked: Delivery[] = [];
    for (const [index, event] of events.slice(sent).entries()) {
      const fresh = this.newDelivery(storeId, subject, record, event);
      const delivery = index === 0 && failure ? this.settled({ ...fresh, attempts: 1 }, failure, run) : fresh;
      const created = await this.deliveries.create({ ...delivery, version: 1 });
      if (created) report.moved += 1;
      if (created && delivery.attempts > 0) report[delivery.state === 'failed' ? 'failed' : 'retrying'] += 1;
      const stored = created ? { ...delivery, version: 1 } : await this.deliveries.get(storeId, delivery.id);
      if (stored) parked.push(stored);
    }
    await this.drain(source, marked, { ...marked.progress!, through: last });
    return { parked, tried: true };
  }

  /**
   * Until when a run the stream woke may start an attempt from the record's outbox: two send timeouts before the
   * index lists it, so that the attempt and the writes after it are done before a listing run may take the record.
   * No limit for a listed record, or where runs never overlap (no grace).
   */
  private startBy(work: RecordWork, outbox: Outbox | undefined): number {
    const listedAt = outboxListedAt(outbox, this.options.outboxGraceMs);
    if (!work.woken || this.options.outboxGraceMs === 0 || listedAt === undefined) return Infinity;
    return listedAt - 2 * this.options.sendTimeoutMs;
  }

  /**
   * Whether the record's later events must wait behind its parked deliveries: the parking did not finish (the
   * record says more was parked than handed on), or the last parked delivery is still pending. It was attempted
   * only after those before it, so reading it alone is enough.
   */
  private async waitsBehind(
    work: RecordWork,
    record: ClaimedRecord<unknown>,
    progress: WebhookProgress,
  ): Promise<boolean> {
    const parked = progress.parked!;
    if (progress.through < parked) return true;
    const id = deliveryIdOf(work.storeId, eventId(work.subject, work.foreignId, record.createdAt, parked));
    const due = work.deliveries.find((delivery) => delivery.id === id);
    const delivery = due ?? (await this.deliveries.get(work.storeId, id));
    return delivery?.state === 'pending';
  }

  /**
   * Stores `target` and drops the events it has handed on; when the record changed since it was read (a new event,
   * or another run's drain), reads it again and drops only what this run handed on, keeping what the other run did.
   * Answers the record as drained; undefined when it is gone or stayed too busy (its events then wait in the
   * outbox for a later run).
   */
  private async drain(
    source: OutboxSource,
    read: OutboxRead,
    target: WebhookProgress,
  ): Promise<OutboxRead | undefined> {
    let current: OutboxRead | undefined = read;
    // A record made again under the foreign_id since is another record: its events are not this run's.
    const same = (found: OutboxRead | undefined) => found?.record.createdAt === read.record.createdAt;
    for (let tries = 0; same(current) && tries < DRAIN_TRIES; tries++) {
      const progress = mergedProgress(read.progress, current!.progress, target);
      if (await source.drainOutbox(current!, progress)) return { record: current!.record, progress };
      current = await source.readOutbox(read.record.foreignId);
    }
    return undefined;
  }

  private newDelivery(
    storeId: StoreId,
    subject: WebhookSubject,
    record: ClaimedRecord<unknown>,
    outboxEvent: OutboxEvent,
  ): Delivery {
    const event = { ...outboxEvent, id: deliveryIdOf(storeId, outboxEvent.id) };
    return {
      id: event.id,
      storeId,
      type: event.type,
      seq: event.seq,
      subject,
      foreignId: record.foreignId,
      recordCreatedAt: record.createdAt,
      body: this.payloadOf(subject, recordAsOf(record, event), event),
      createdAt: event.at,
      state: 'pending',
      attempts: 0,
      retryFrom: event.at,
      nextAttemptAt: event.at,
      attemptUntil: null,
      lastAttempt: null,
      deliveredAt: null,
      version: 1,
    };
  }

  /** Attempts a record's due deliveries in seq order, stopping at the first not delivered; true if any was tried. */
  private async deliverInOrder(queue: Delivery[], report: DispatchReport, run: RunState): Promise<boolean> {
    let tried = false;
    let sender: WebhookSender | undefined;
    try {
      sender = await this.senders.get(queue[0].storeId);
    } catch (error) {
      run.failures.push(error);
      sender = UNREADABLE_ACCOUNT;
    }
    for (const delivery of queue) {
      if (this.options.timeLeftMs() <= this.options.sendTimeoutMs) break;
      const outcome = await this.attempt(delivery, sender, run);
      if (outcome === 'skipped') break;
      tried = true;
      report[outcome] += 1;
      if (outcome !== 'delivered') break;
    }
    return tried;
  }

  private async attempt(
    delivery: Delivery,
    sender: WebhookSender | undefined,
    run: RunState,
  ): Promise<'delivered' | 'retrying' | 'failed' | 'skipped'> {
    const claimed = await this.claim(delivery, run);
    if (!claimed) return 'skipped';
    // Its store's endpoint was removed since it was made: it waits, on the schedule, for one.
    const answer = sender
      ? await sender.send(claimed, this.options.sendTimeoutMs)
      : { status: null, error: 'no endpoint' };
    const settled = this.settled(claimed, { at: this.options.now(), ...answer }, run);
    // Lost only if the attempt outlived its lease and another run took it over; that run records its own.
    if (!(await this.deliveries.update(settled, claimed.version))) return 'skipped';
    if (settled.state === 'delivered') {
      run.delivered.add(settled.id);
      this.delivered(settled, settled.attempts, answer.status, settled.deliveredAt!);
    }
    return settled.state === 'delivered' ? 'delivered' : settled.state === 'failed' ? 'failed' : 'retrying';
  }

  /**
   * `attempted` as its attempt left it: delivered, put off to its next attempt on the schedule (a wake asked for
   * then), or failed for good once the retry window has passed (told).
   */
  private settled(attempted: Delivery, lastAttempt: DeliveryAttempt, run: RunState): Delivery {
    const { at } = lastAttempt;
    const outOfTime =
      at - attempted.retryFrom >= this.options.schedule.windowMs * this.options.schedule.scale;
    const settled: Delivery = {
      ...attempted,
      attemptUntil: null,
      lastAttempt,
      version: attempted.version + 1,
      ...(isDelivered(lastAttempt)
        ? { state: 'delivered', deliveredAt: at }
        : outOfTime
          ? { state: 'failed' }
          : {
              nextAttemptAt:
                at + retryDelayMs(this.options.schedule, attempted.attempts, this.options.random()),
            }),
    };
    if (settled.state === 'failed') this.options.onGaveUp(settled);
    if (settled.state === 'pending') wakeAt(run.wakes, settled.nextAttemptAt);
    return settled;
  }

  private delivered(delivery: Delivery, attempts: number, status: number | null, at: number): void {
    const { storeId, id: eventId, type, subject, foreignId, seq } = delivery;
    this.options.onDelivered?.({ storeId, eventId, type, subject, foreignId, seq, attempts, status, at });
  }

  /**
   * Whether the record's previous event is still to be delivered. Its id follows from the seq; it was attempted
   * only after its own previous one, so checking one back is enough. This one then waits until that one's next
   * attempt, so that it is not read again before.
   */
  private async waitsForEarlier(delivery: Delivery, now: number, run: RunState): Promise<boolean> {
    const previous = await this.earlierPending(delivery, run);
    if (!previous) return false;
    const after = Math.max(previous.attemptUntil ?? previous.nextAttemptAt, now) + 1;
    const waits = await this.deliveries.update(
      { ...delivery, nextAttemptAt: after, version: delivery.version + 1 },
      delivery.version,
    );
    if (waits) wakeAt(run.wakes, after);
    return true;
  }

  /**
   * The record's previous event, when it waits as a pending delivery; not read again once this run delivered it.
   * One delivered at its first attempt has no delivery item: not found, it waits for nothing.
   */
  private async earlierPending(delivery: Delivery, run: RunState): Promise<Delivery | undefined> {
    if (delivery.seq <= 1) return undefined;
    const { storeId, subject, foreignId, recordCreatedAt, seq } = delivery;
    const id = deliveryIdOf(storeId, eventId(subject, foreignId, recordCreatedAt, seq - 1));
    if (run.delivered.has(id)) return undefined;
    const previous = await this.deliveries.get(storeId, id);
    return previous?.state === 'pending' ? previous : undefined;
  }

  /** Takes `delivery` for an attempt now, if it is due and nothing holds it; undefined when it is not to be tried. */
  private async claim(delivery: Delivery, run: RunState): Promise<Delivery | undefined> {
    const now = this.options.now();
    if (delivery.state !== 'pending' || delivery.nextAttemptAt > now) return undefined;
    if (delivery.attemptUntil !== null && delivery.attemptUntil > now) return undefined;
    if (await this.waitsForEarlier(delivery, now, run)) return undefined;
    // Its place in the due index stays: the claim writes the item alone, and the lease keeps other runs off it.
    const claimed: Delivery = {
      ...delivery,
      attempts: delivery.attempts + 1,
      attemptUntil: now + this.options.leaseMs,
      version: delivery.version + 1,
    };
    // Another run holds it (its lease), or it moved on since it was read.
    return (await this.deliveries.update(claimed, delivery.version)) ? claimed : undefined;
  }
}

function isDelivered(answer: { status: number | null }): boolean {
  return answer.status !== null && answer.status >= 200 && answer.status < 300;
}

/**
 * The progress to store: `target`, what this run did from the progress it read (`asRead`), merged with what other
 * runs did since (`now`). What is handed on only grows; a parked seq another run set since stays, one this run
 * found settled goes; the later delivered event is kept.
 */
function mergedProgress(
  asRead: WebhookProgress | undefined,
  now: WebhookProgress | undefined,
  target: WebhookProgress,
): WebhookProgress {
  if (!now) return target;
  const parkedSince = now.parked === asRead?.parked ? undefined : now.parked;
  const parked = Math.max(parkedSince ?? 0, target.parked ?? 0);
  const delivered = [now.delivered, target.delivered]
    .filter((note) => note !== undefined)
    .sort((a, b) => b.seq - a.seq)[0];
  return {
    through: Math.max(now.through, target.through),
    ...(parked > 0 && { parked }),
    ...(delivered && { delivered }),
  };
}

/**
 * What one run knows: the times to be woken at (whole seconds, so that retries put off to the same second share
 * one), the events it delivered, and the work that failed.
 */
interface RunState {
  wakes: Set<number>;
  delivered: Set<string>;
  failures: unknown[];
}

/**
 * The records' work with the stores taking turns: every store's first record, then every store's second, and so
 * on, so that a store with many records due (or a slow endpoint) does not hold the others behind it.
 */
function takingTurns(records: RecordWork[]): RecordWork[] {
  const byStore = new Map<StoreId, RecordWork[]>();
  for (const work of records) byStore.set(work.storeId, [...(byStore.get(work.storeId) ?? []), work]);
  const stores = [...byStore.values()];
  const longest = Math.max(0, ...stores.map((store) => store.length));
  return Array.from({ length: longest }, (_, turn) =>
    stores.flatMap((store) => (turn < store.length ? [store[turn]] : [])),
  ).flat(1);
}

/** Rounded up to the whole second, so that the run it asks for finds the retry due. */
function wakeAt(wakes: Set<number>, at: number): void {
  wakes.add(Math.ceil(at / 1000) * 1000);
}

/** Compare-and-set tries of a re-send before it answers "in progress": the dispatcher may be attempting it. */
const RESEND_TRIES = 5;

/**
 * Resends one of the store's deliveries now, with a new retry window; NotFoundError when it has none of that id
 * (another store's is not found either). While an attempt is under way it answers "in progress" instead: a second
 * send of the same event would run beside it.
 */
export async function resend(
  deliveries: DeliveryStore,
  storeId: StoreId,
  id: string,
  now: number,
): Promise<Delivery> {
  for (let tries = 0; tries < RESEND_TRIES; tries++) {
    const current = await deliveries.get(storeId, id);
    if (!current) throw new NotFoundError('Delivery');
    if (current.attemptUntil !== null && current.attemptUntil > now) {
      throw new InProgressError(Math.ceil((current.attemptUntil - now) / 1000));
    }
    const next: Delivery = {
      ...current,
      state: 'pending',
      retryFrom: now,
      nextAttemptAt: now,
      version: current.version + 1,
    };
    if (await deliveries.update(next, current.version)) return next;
  }
  throw new InProgressError(1);
}

/** Resends up to `limit` of the store's failed deliveries; answers how many, and whether more failed ones remain. */
export async function resendFailed(
  deliveries: DeliveryStore,
  storeId: StoreId,
  limit: number,
  now: number,
): Promise<{ resent: number; more: boolean }> {
  const failed = await deliveries.listFailed(storeId, limit + 1);
  const batch = failed.slice(0, limit);
  await Promise.all(batch.map(({ id }) => resend(deliveries, storeId, id, now)));
  return { resent: batch.length, more: failed.length > limit };
}

/** Runs `work` over `items`, at most `parallel` at once; answers the results in order. */
async function inParallel<T, R>(items: T[], parallel: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, items.length) }, worker));
  return results;
}
