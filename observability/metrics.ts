export const METRICS_NAMESPACE = 'MerchantPayments';
export const SERVICE_DIMENSION = { Service: 'payments-plugin' };
/** `UpstreamServerErrors`: a request failed on a 5xx or unreadable answer from the service, or on no answer in time. */
export type MetricName = 'UpstreamServerErrors' | 'CallbackSignatureFailures';

/** Emits one count in CloudWatch Embedded Metric Format: a log line that CloudWatch turns into a metric. */
export function countMetric(name: MetricName): void {
  console.log(
    JSON.stringify({
      _aws: {
        Timestamp: Date.now(),
        CloudWatchMetrics: [
          {
            Namespace: METRICS_NAMESPACE,
            Dimensions: [['Service']],
            Metrics: [{ Name: name, Unit: 'Count' }],
          },
        ],
      },
      ...SERVICE_DIMENSION,
      [name]: 1,
    }),
  );
}
