import middy from '@middy/core';
import type { DispatchReport } from '../domain/webhook-deliveries';
import { WebhookDispatcher } from '../domain/webhook-dispatcher';
import { webhookPayloadWith } from '../http/webhook-views';
import { log } from '../observability/log';
import { countMetric } from '../observability/metrics';
import { explorers } from '../runtime/explorers';
import { remainingMs } from '../runtime/deadline';
import { invocation } from '../runtime/invocation';
import { announceEvents } from '../runtime/webhook-events';
import {
  deliveryStore,
  dispatcherWake,
  dispatchTiming,
  outboxSources,
  storeWebhookSenders,
  streamWork,
  webhookSender,
} from '../runtime/webhooks';

/**
 * Runs where records make events (WEBHOOK_EVENTS=on). The default store's endpoint is WEBHOOK_URL; without one, the
 * default store records no deliveries, as any store with no endpoint.
 */
const dispatcher =
  announceEvents &&
  new WebhookDispatcher(
    outboxSources,
    deliveryStore,
    storeWebhookSenders(webhookSender()),
    webhookPayloadWith(explorers),
    {
      ...dispatchTiming,
      wake: dispatcherWake(),
      timeLeftMs: () => remainingMs() ?? Infinity,
      // An event delivered at its first attempt leaves no delivery item: this line is its record (no body, no secret).
      onDelivered: (delivered) => log.info('webhook delivered', { ...delivered }),
      onGaveUp: (delivery) => {
        countMetric('WebhookDeliveryFailures', 1, { Store: delivery.storeId });
        log.error('webhook delivery failed for good', {
          storeId: delivery.storeId,
          eventId: delivery.id,
          type: delivery.type,
          attempts: delivery.attempts,
        });
      },
    },
  );

/**
 * Triggered by the table's stream (a write left events waiting in a record's outbox: those records are the run's
 * work), by its wake queue (a retry came due) and on a schedule (retries that came due, should a wake be lost):
 * those do what the `deliveries-due` index says is due, for every store.
 */
export const handler = middy(async (event: unknown): Promise<DispatchReport | { configured: false }> => {
  if (!dispatcher) return { configured: false };
  const report = await dispatcher.run(streamWork(event));
  if (report.moved + report.delivered + report.retrying + report.failed > 0) {
    log.info('webhook dispatch done', { ...report });
  }
  return report;
}).use(invocation());
