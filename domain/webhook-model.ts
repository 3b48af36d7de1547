// What webhooks keep: a record's outbox of events, and each event's delivery to the shop once it left the outbox.
import type { StoreId } from './ids';

/** A webhook event in its record's outbox (domain/webhooks.ts makes them). */
export interface OutboxEvent {
  /** Derived from the record's kind, foreign_id, `createdAt` and `seq`: a replayed write cannot make a second id. */
  id: string;
  type: WebhookEventType;
  /** Per record, only grows: a receiver drops an event older than one it has. */
  seq: number;
  at: number;
  /** What the record held then beyond what it still holds (domain/webhooks.ts, `eventState`): its view is rendered from both. */
  state: EventState;
}

/**
 * The record as the change left it, less what stays the same while its events wait (domain/webhooks.ts,
 * `STAYS_PUT`): its key, creation time and request, and its history but for its length (the history only grows).
 * A claim that takes the record over keeps what stayed put in its waiting events.
 */
export interface EventState {
  historyLength: number;
  [field: string]: unknown;
}

/** Every webhook event type, as the code makes them, the OpenAPI document lists them and the docs name them. */
export const WEBHOOK_EVENT_TYPES = [
  'invoice.awaiting_payment',
  'invoice.confirming',
  'invoice.paid',
  'invoice.underpaid',
  'invoice.expired',
  'invoice.cancelled',
  'invoice.failed',
  'invoice.exception',
  'refund.awaiting_claim',
  'refund.claim_expired',
  'refund.claim_cancelled',
  'refund.awaiting_approval',
  'refund.sent',
  'refund.confirmed',
  'refund.failed',
  'refund.declined',
  'refund.cancelled',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/** A record's webhook state: the last seq given out, what the events so far announced, and those not yet drained. */
export interface Outbox {
  seq: number;
  announced: Record<string, string | null>;
  pending: OutboxEvent[];
}

/**
 * When the `deliveries-due` index lists a record whose outbox holds events: `graceMs` after the first one. Until
 * then the runs that read the index leave it to the run the record's write woke (through the table's stream); after
 * it, they pick up what that run left, had it died.
 */
export function outboxListedAt(outbox: Outbox | undefined, graceMs: number): number | undefined {
  const first = outbox?.pending[0];
  return first && first.at + graceMs;
}

/**
 * What the dispatcher did with a record's events. It is kept beside the record, not in it, so that a status write
 * computed from a read made before a drain cannot undo it.
 */
export interface WebhookProgress {
  /** The highest seq handed on: delivered at its first attempt, or moved to a delivery item. */
  through: number;
  /** The highest seq moved to a delivery item that may still be pending: the record's later events wait behind it. */
  parked?: number;
  /** The last event delivered at its first attempt, and when: what the store owner sees without a delivery item. */
  delivered?: { seq: number; at: number };
}

export type WebhookSubject = 'invoice' | 'refund';

/**
 * One event's delivery to the shop's endpoint, kept as an item of its own once its first attempt failed (or it was
 * parked behind one that did): an event delivered at its first attempt has none.
 */
export interface Delivery {
  id: string;
  /** The store of the record whose event it carries: its endpoint, secret and lists. */
  storeId: StoreId;
  type: WebhookEventType;
  seq: number;
  subject: WebhookSubject;
  foreignId: string;
  /** Its record's `createdAt`: with the seq before its own, the id of the event it waits for. */
  recordCreatedAt: number;
  /** The exact JSON body, signed and sent on every attempt. */
  body: string;
  createdAt: number;
  state: 'pending' | 'delivered' | 'failed';
  attempts: number;
  /** Retries run for the retry window from here; an admin's re-send starts a new window. */
  retryFrom: number;
  /** When the next attempt is due (or was, while one is under way): its place in the `deliveries-due` index. */
  nextAttemptAt: number;
  /**
   * While an attempt is under way, when its lease ends: until then no other run, and no re-send, starts one. A run
   * that died leaves it to run out.
   */
  attemptUntil: number | null;
  lastAttempt: DeliveryAttempt | null;
  deliveredAt: number | null;
  version: number;
}

/** How an attempt ended: the HTTP status, or a short reason when there was none (never the response body). */
export interface DeliveryAttempt {
  at: number;
  status: number | null;
  error: string | null;
}
