// Which events a record's change makes: written into the record's outbox by the same conditional write, and
// delivered from there by the dispatcher (domain/webhook-dispatcher.ts).
import { createHash } from 'node:crypto';
import { InProgressError } from './errors';
import type { ClaimedRecord, Deposit, InvoiceRecord, RefundRecord } from './model';
import type { EventState, Outbox, OutboxEvent, WebhookEventType, WebhookSubject } from './webhook-model';
import { invoiceOutcome, type InvoiceStatusName } from './outcome';
import { AWAITING_APPROVAL, isFinal } from './status';
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
  awaiting_claim: 'refund.awaiting_claim',
  claim_expired: 'refund.claim_expired',
  claim_cancelled: 'refund.claim_cancelled',
  awaiting_approval: 'refund.awaiting_approval',
  sent: 'refund.sent',
  confirmed: 'refund.confirmed',
  failed: 'refund.failed',
  declined: 'refund.declined',
  cancelled: 'refund.cancelled',
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

/**
 * `refund.awaiting_approval` while the service holds the withdrawal for an owner's approval, `refund.sent` once it
 * sends it, then `refund.confirmed`, `refund.failed`, `refund.declined` or `refund.cancelled`. A claim link's refund
 * first `refund.awaiting_claim`, and `refund.claim_expired` or `refund.claim_cancelled` if no address came.
 */
export const refundEvents: EventKind<RefundRecord> = {
  subject: 'refund',
  announced: (record) => ({ status: refundStage(record) }),
  types: (before, after) =>
    before.status !== after.status && after.status !== null
      ? [REFUND_STAGE_EVENTS[after.status as RefundStage]]
      : [],
};

function refundStage(record: RefundRecord): RefundStage | null {
  if (record.phase === 'claimable') return 'awaiting_claim';
  const closed = record.claimLink?.closed;
  if (record.phase === 'rejected') return closed ? `claim_${closed}` : 'failed';
  if (record.phase !== 'sent' || record.status === null) return null;
  if (record.status === AWAITING_APPROVAL) return 'awaiting_approval';
  if (!isFinal(record.status)) return 'sent';
  const { status } = record;
  return status === 'confirmed' || status === 'declined' || status === 'cancelled' ? status : 'failed';
}

/** Before any event: what a new record would announce, which makes none. */
const NOTHING_ANNOUNCED: Announced = { status: 'creating', exception: null };

/**
 * Events an outbox holds at most, so that every item stays under DynamoDB's 400 KB; a write past it answers "in
 * progress" and comes again (docs/internals.md, "The webhook outbox").
 */
export const OUTBOX_CAP = 8;

/**
 * Events a claim carries over when it takes a record over, each keeping the request it was made with; with more
 * waiting, the claim answers "in progress" until the dispatcher has drained them.
 */
export const OUTBOX_CAP_AT_TAKEOVER = 1;

/**
 * `record` with the events its state makes since its last announcement appended to its outbox: every write of a
 * claimed record passes through here (domain/records.ts). A stored `previous` without an outbox counts as
 * announced, so that turning events on announces only the changes made since.
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
 * What stays put while a record's events wait, so that an event need not keep it (docs/internals.md, "The webhook
 * outbox").
 */
const STAYS_PUT = [
  'foreignId',
  'createdAt',
  'request',
  'history',
  'invoice',
  'clientSecretHash',
  'deposits',
] as const;

/**
 * What an event keeps of its record: all but what stays put (model.ts, `EventState`), and never a refund's
 * receiver, which is personal data that goes to the payment service alone.
 */
function eventState(record: ClaimedRecord<unknown>): EventState {
  const changing: Record<string, unknown> = { ...record };
  for (const field of [...STAYS_PUT, 'outbox', 'version', 'receiver']) delete changing[field];
  // The service's news moves an invoice's expiry later while its earlier events wait: each shows its own.
  const releaseAt = (record as Partial<InvoiceRecord>).invoice?.releaseAt;
  // A few numbers in place of the deposits, which would fill an item if every waiting event kept them whole.
  const deposits = (record as Partial<InvoiceRecord>).deposits;
  return {
    ...changing,
    historyLength: record.history.length,
    ...(releaseAt != null && { releaseAt }),
    ...(deposits && { depositConfirmations: deposits.map((deposit) => deposit.confirmations) }),
  };
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
  const { historyLength, releaseAt, depositConfirmations, ...kept } = event.state;
  const now = record as unknown as Record<string, unknown>;
  const asOf: Record<string, unknown> = { ...kept, version: record.version };
  for (const field of STAYS_PUT) asOf[field] = field in kept ? kept[field] : now[field];
  if (typeof releaseAt === 'number' && asOf.invoice)
    asOf.invoice = { ...(asOf.invoice as object), releaseAt };
  asOf.history = (asOf.history as unknown[]).slice(0, historyLength);
  const confirmations = Array.isArray(depositConfirmations) ? (depositConfirmations as number[]) : [];
  asOf.deposits =
    confirmations.length === 0
      ? undefined
      : (asOf.deposits as Deposit[] | undefined)
          ?.slice(0, confirmations.length)
          .map((deposit, index) => ({ ...deposit, confirmations: confirmations[index] }));
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
 * The id a store's event is delivered under (its `webhook-id`): the event's own for the default store, and one of
 * its own for another store, so that two stores' events never share an id.
 */
export function deliveryIdOf(storeId: StoreId, id: string): string {
  if (storeId === DEFAULT_STORE_ID) return id;
  const digest = createHash('sha256').update(`${storeId}\n${id}`).digest('base64url');
  return `evt_${digest.slice(0, 24)}`;
}
