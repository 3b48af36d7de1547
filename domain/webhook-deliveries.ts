// A delivery item's life: attempted in seq order under a lease, retried on the schedule, and re-sent on request.
import { InProgressError, NotFoundError } from './errors';
import type { Delivery, DeliveryAttempt, WebhookEventType, WebhookSubject } from './webhook-model';
import type { DeliveryStore, DispatcherWake, StoreWebhookSenders, WebhookSender } from './ports';
import type { StoreId } from './stores';
import { deliveryIdOf, eventId } from './webhooks';

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
  /** How long only the run a record's write woke works on its outbox, so that no two runs send an event at once. */
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

/** Where a store's account cannot be read: the attempt fails and retries on the schedule, as a refusing endpoint's. */
export const UNREADABLE_ACCOUNT: WebhookSender = {
  send: async () => ({ status: null, error: "the store's account could not be read" }),
};

/** Attempts a store's delivery items and settles each by its answer, on the retry schedule. */
export class DeliveryAttempts {
  constructor(
    private readonly deliveries: DeliveryStore,
    private readonly senders: StoreWebhookSenders,
    private readonly options: DispatchOptions,
  ) {}

  /** Attempts a record's due deliveries in seq order, stopping at the first not delivered; true if any was tried. */
  async deliverInOrder(queue: Delivery[], report: DispatchReport, run: RunState): Promise<boolean> {
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
  settled(attempted: Delivery, lastAttempt: DeliveryAttempt, run: RunState): Delivery {
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

  delivered(delivery: Delivery, attempts: number, status: number | null, at: number): void {
    const { storeId, id: eventId, type, subject, foreignId, seq } = delivery;
    this.options.onDelivered?.({ storeId, eventId, type, subject, foreignId, seq, attempts, status, at });
  }

  /** Whether the record's previous event is still pending, in which case this one waits until its next attempt. */
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

export function isDelivered(answer: { status: number | null }): boolean {
  return answer.status !== null && answer.status >= 200 && answer.status < 300;
}

/**
 * What one run knows: the times to be woken at (whole seconds, so that retries put off to the same second share
 * one), the events it delivered, and the work that failed.
 */
export interface RunState {
  wakes: Set<number>;
  delivered: Set<string>;
  failures: unknown[];
}

/** Rounded up to the whole second, so that the run it asks for finds the retry due. */
export function wakeAt(wakes: Set<number>, at: number): void {
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
