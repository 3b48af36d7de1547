import { SQSClient } from '@aws-sdk/client-sqs';
import type { Delivery } from '../domain/model';
import type { DispatcherWake } from '../domain/ports';
import { RETRY_SCHEDULE, type DispatchOptions } from '../domain/webhooks';
import { describeError, log } from '../observability/log';
import { DynamoDeliveryStore } from '../store/delivery-store';
import { DynamoRecordList } from '../store/record-list';
import { parseWebhookSecret } from '../secrets/webhook-secret';
import { endpointRefusal, HttpWebhookSender } from '../webhooks/sender';
import { isWebhookSecret } from '../webhooks/signing';
import { noWake, SqsDispatcherWake } from '../webhooks/wake';
import { awsClientConfig, withoutSdkLogging } from './aws-clients';
import { numberEnv } from './env';
import { cachedSecret } from './secret';
import { table } from './table';

export const deliveryStore = /* @__PURE__ */ new DynamoDeliveryStore(
  table,
  /* @__PURE__ */ numberEnv('WEBHOOK_RETENTION_DAYS', 30),
);

export const deliveryList = /* @__PURE__ */ new DynamoRecordList<Delivery>(
  table,
  'WEBHOOK',
  (delivery) => delivery.id,
);

/** The shop's endpoint from WEBHOOK_URL, or undefined when none is set; a URL we may not send to stops the function. */
export function webhookSender(): HttpWebhookSender | undefined {
  const url = process.env.WEBHOOK_URL;
  if (!url) return undefined;
  const refusal = endpointRefusal(url, process.env.WEBHOOK_ALLOW_LOOPBACK_HTTP === 'true');
  // The URL itself stays out of the message: it may carry a token of the shop's.
  if (refusal) throw new Error(`WEBHOOK_URL is refused: ${refusal}`);
  const secret = cachedSecret('webhookSecret', (text) => parseWebhookSecret(text, isWebhookSecret));
  return new HttpWebhookSender({ url, secrets: () => secret.get(), now: Date.now });
}

/** The dispatcher's timing, from the environment; WEBHOOK_RETRY_SCALE shrinks every retry wait and the window. */
export const dispatchTiming: Omit<DispatchOptions, 'timeLeftMs' | 'onGaveUp' | 'wake'> = {
  now: Date.now,
  sendTimeoutMs: numberEnv('WEBHOOK_TIMEOUT_MS', 10_000),
  leaseMs: numberEnv('WEBHOOK_LEASE_MS', 15_000),
  schedule: { ...RETRY_SCHEDULE, scale: numberEnv('WEBHOOK_RETRY_SCALE', 1) },
  batch: numberEnv('WEBHOOK_BATCH', 100),
  parallel: numberEnv('WEBHOOK_PARALLEL', 16),
  random: Math.random,
};

/** The queue that wakes the dispatcher when a retry comes due (AWS); without WEBHOOK_WAKE_QUEUE_URL, none. */
export function dispatcherWake(): DispatcherWake {
  const queueUrl = process.env.WEBHOOK_WAKE_QUEUE_URL;
  if (!queueUrl) return noWake;
  return new SqsDispatcherWake(
    withoutSdkLogging(new SQSClient(awsClientConfig())),
    queueUrl,
    Date.now,
    // Not fatal: the schedule runs the retry a little later.
    (error) => log.warn('webhook wake not queued', describeError(error)),
  );
}

/** The records a stream event names (store/delivery-store.ts). */
export { streamWork } from '../store/delivery-store';
