// The dispatcher: moves events out of record outboxes, delivering each at its first attempt where it can.
import { type ClaimedRecord } from './model';
import {
  outboxListedAt,
  type Delivery,
  type DeliveryAttempt,
  type Outbox,
  type OutboxEvent,
  type WebhookProgress,
  type WebhookSubject,
} from './webhook-model';
import type {
  DeliveryStore,
  DueWork,
  OutboxRead,
  OutboxSource,
  StoreWebhookSenders,
  WebhookSender,
} from './ports';
import type { StoreId } from './stores';
import {
  DeliveryAttempts,
  isDelivered,
  UNREADABLE_ACCOUNT,
  wakeAt,
  type DispatchOptions,
  type DispatchReport,
  type RunState,
} from './webhook-deliveries';
import { deliveryIdOf, eventId, recordAsOf } from './webhooks';

/** The JSON body for an event: `{id, type, created_at, sequence, store_id, data}` with `data` the view of `record` then. */
export type PayloadOf = (
  subject: WebhookSubject,
  record: ClaimedRecord<unknown>,
  event: OutboxEvent,
  storeId: StoreId,
) => string;

/** A store's record outboxes, by kind. */
export type OutboxSources = (storeId: StoreId) => Record<WebhookSubject, OutboxSource>;

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

/** Delivers every store's waiting events and due retries, each to its own store's endpoint (docs/webhooks.md). */
export class WebhookDispatcher {
  private readonly attempts: DeliveryAttempts;

  constructor(
    private readonly sources: OutboxSources,
    private readonly deliveries: DeliveryStore,
    private readonly senders: StoreWebhookSenders,
    private readonly payloadOf: PayloadOf,
    private readonly options: DispatchOptions,
  ) {
    this.attempts = new DeliveryAttempts(deliveries, senders, options);
  }

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
    return (await this.attempts.deliverInOrder(queue, report, run)) || tried;
  }

  /**
   * Sends the outbox's events in seq order at their first attempt and parks the rest as delivery items, so that a
   * crash at any point leaves them in the outbox to be sent again under the same ids (docs/webhooks.md).
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
      this.attempts.delivered(delivery, 1, answer.status, at);
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
      const delivery =
        index === 0 && failure ? this.attempts.settled({ ...fresh, attempts: 1 }, failure, run) : fresh;
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
   * Stores `target` and drops the events handed on, reading the record again when another write moved it on;
   * undefined when it is gone or stayed too busy, and its events wait for a later run.
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
      body: this.payloadOf(subject, recordAsOf(record, event), event, storeId),
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
