export const METRICS_NAMESPACE = 'MerchantPayments';

/** The variable the stack sets to the stage's name (lib/payments-plugin-stack.ts). */
export const STAGE_ENV = 'STAGE';

/** Every custom metric's dimensions: a stage's own, so that a sandbox in the same account never fires production's alarms. */
export function metricDimensions(stage: string): { Service: string; Stage: string } {
  return { Service: 'payments-plugin', Stage: stage };
}
/** `UpstreamServerErrors`: a request failed on a 5xx or unreadable answer from the service, or on no answer in time. */
/** `WebhookDeliveryFailures`: a webhook ran out of retries (3 days) and waits for an admin's re-send; also per `Store`. */
/** `InvoiceLookupNotFound`: the service did not find an invoice we created by its id (runtime/invoice-lookups.ts). */
/** `ReconcileLookFailures`: the reconcile job could not look at a record; it looks again later. */
/** `NewsMismatch`: news from the service named another record, or came to another account; never applied. */
/** `UnrenderableRecords`: a stored record holds a time no view can write; lists, exports and webhooks went on without it. */
/** `StoreRateLimited`: a store's request was refused over its requests a second (429 `rate_limited`); also per `Store`. */
export type MetricName =
  | 'UpstreamServerErrors'
  | 'CallbackSignatureFailures'
  | 'WebhookDeliveryFailures'
  | 'InvoiceLookupNotFound'
  | 'ReconcileLookFailures'
  | 'NewsMismatch'
  | 'UnrenderableRecords'
  | 'StoreRateLimited';

/** Dimensions a count may carry besides the stage's: `Store`, the store it happened for (a webhook's, a refusal's). */
export interface CountDimensions {
  Store?: string;
}

/**
 * Emits one count in CloudWatch Embedded Metric Format as a raw stdout line, not through `console`, whose wrapping
 * stops CloudWatch from reading it as a metric. With `dimensions`, it is also counted per those dimensions beside
 * the stage's total, so that one alarm watches every store and each store has a graph.
 */
export function countMetric(name: MetricName, count = 1, dimensions: CountDimensions = {}): void {
  const extra = Object.keys(dimensions).sort();
  process.stdout.write(
    `${JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [['Service', 'Stage'], ...(extra.length > 0 ? [['Service', 'Stage', ...extra]] : [])],
            Metrics: [{ Name: name, Unit: 'Count' }],
          },
        ],
      },
      ...metricDimensions(process.env[STAGE_ENV] ?? 'local'),
      ...dimensions,
      [name]: count,
    })}\n`,
  );
}
