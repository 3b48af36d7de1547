import type { StoreId } from '../domain/stores';
import type { ClaimedRecord, InvoiceRecord, RefundRecord } from '../domain/model';
import type { Delivery, OutboxEvent, WebhookSubject } from '../domain/webhook-model';
import { DEFAULT_EXPLORER_URLS, type ExplorerTemplates } from '../domain/explorers';
import { countUnrenderable } from './render-guard';
import { UnrenderableRecordError } from './errors';
import { invoiceView, iso, refundView } from './views';

/**
 * An event's JSON body, naming the store whose record it is: `data` is the view the shop reads with GET of `record` as the event's change left it
 * (domain/webhooks.ts, `recordAsOf`), so nothing the shop could not read already; `sequence` grows per order. A
 * record no view can render still has its events sent, in order, with `data` null and an `error` naming the record
 * (docs/webhooks.md), so that neither its later events nor any other record's wait behind it.
 */
export function webhookPayload(
  subject: WebhookSubject,
  record: ClaimedRecord<unknown>,
  event: OutboxEvent,
  storeId: StoreId,
  explorers: ExplorerTemplates = DEFAULT_EXPLORER_URLS,
): string {
  try {
    const data =
      subject === 'invoice'
        ? invoiceView(record as InvoiceRecord, event.at, explorers)
        : refundView(record as RefundRecord);
    return JSON.stringify({
      id: event.id,
      type: event.type,
      created_at: iso(event.at, 'created_at'),
      sequence: event.seq,
      store_id: storeId,
      data,
    });
  } catch (error) {
    if (!(error instanceof UnrenderableRecordError)) throw error;
    countUnrenderable(error, record, 'marked in a webhook');
    return JSON.stringify({
      id: event.id,
      type: event.type,
      created_at: isoOrNull(event.at),
      sequence: event.seq,
      store_id: storeId,
      data: null,
      error: { code: error.code, message: error.message, foreign_id: record.foreignId },
    });
  }
}

/** `webhookPayload` with the stage's explorer links. */
export const webhookPayloadWith =
  (explorers: ExplorerTemplates) =>
  (subject: WebhookSubject, record: ClaimedRecord<unknown>, event: OutboxEvent, storeId: StoreId): string =>
    webhookPayload(subject, record, event, storeId, explorers);

function isoOrNull(ms: number): string | null {
  try {
    return iso(ms, 'created_at');
  } catch {
    return null;
  }
}

export interface DeliveryView {
  id: string;
  type: string;
  /** `invoice` or `refund`, and its foreign_id. */
  subject: WebhookSubject;
  foreign_id: string;
  sequence: number;
  state: Delivery['state'];
  attempts: number;
  created_at: string;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  /** The endpoint's HTTP status on the last attempt; null when it gave none. */
  last_status: number | null;
  /** Why the last attempt got no status (`timeout`, `ECONNREFUSED`, ...); never the endpoint's body. */
  last_error: string | null;
  delivered_at: string | null;
}

export function deliveryView(delivery: Delivery): DeliveryView {
  const { lastAttempt } = delivery;
  return {
    id: delivery.id,
    type: delivery.type,
    subject: delivery.subject,
    foreign_id: delivery.foreignId,
    sequence: delivery.seq,
    state: delivery.state,
    attempts: delivery.attempts,
    created_at: iso(delivery.createdAt, 'created_at'),
    next_attempt_at:
      delivery.state === 'pending'
        ? iso(delivery.attemptUntil ?? delivery.nextAttemptAt, 'next_attempt_at')
        : null,
    last_attempt_at: lastAttempt && iso(lastAttempt.at, 'last_attempt_at'),
    last_status: lastAttempt?.status ?? null,
    last_error: lastAttempt?.error ?? null,
    delivered_at: delivery.deliveredAt === null ? null : iso(delivery.deliveredAt, 'delivered_at'),
  };
}
