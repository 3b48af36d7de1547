import { SQSClient } from '@aws-sdk/client-sqs';
import type { Delivery } from '../domain/webhook-model';
import type { DispatcherWake, NewestFirst, StoreWebhookSenders, WebhookSender } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreId } from '../domain/stores';
import { RETRY_SCHEDULE, type DispatchOptions } from '../domain/webhook-deliveries';
import type { OutboxSources } from '../domain/webhook-dispatcher';
import { describeError, log } from '../observability/log';
import { DynamoDeliveryStore } from '../store/delivery-store';
import { DynamoRecordList } from '../store/record-list';
import { parseWebhookSecret } from '../secrets/webhook-secret';
import { endpointRefusal, HttpWebhookSender } from '../webhooks/sender';
import { isWebhookSecret } from '../webhooks/signing';
import { StoreWebhookEndpoints } from '../webhooks/store-senders';
import { noWake, SqsDispatcherWake } from '../webhooks/wake';
import { awsClientConfig, withoutSdkLogging } from './aws-clients';
import { numberEnv } from './env';
import { cachedSecret } from './secret';
import { storeAccounts } from './store-accounts';
import { invoiceStore, refundStore } from './stores';
import { table } from './table';
import { outboxGraceMs } from './timing';
import { allowLoopbackHttp } from './webhook-events';

export const deliveryStore = /* @__PURE__ */ new DynamoDeliveryStore(
  table,
  /* @__PURE__ */ numberEnv('WEBHOOK_RETENTION_DAYS', 30),
);

const deliveryList = /* @__PURE__ */ new DynamoRecordList<Delivery>(
  table,
  DEFAULT_STORE_ID,
  'WEBHOOK',
  (delivery) => delivery.id,
);

/** The store's deliveries, newest first, from its own partitions of the `created` index. */
export function deliveryListOf(storeId: StoreId): NewestFirst<Delivery> {
  const list = deliveryList.forStore(storeId);
  return {
    listNewest: async (query) => {
      const { records, more } = await list.listNewest(query);
      return { records: records.map((delivery) => ({ ...delivery, storeId })), more };
    },
  };
}

const outboxesByStore = /* @__PURE__ */ new Map<StoreId, ReturnType<OutboxSources>>();

/** A store's record outboxes, for the dispatcher; one pair per store in the warm container. */
export const outboxSources: OutboxSources = (storeId) => {
  let sources = outboxesByStore.get(storeId);
  if (!sources) {
    sources = { invoice: invoiceStore.forStore(storeId), refund: refundStore.forStore(storeId) };
    outboxesByStore.set(storeId, sources);
  }
  return sources;
};

/** The shop's endpoint from WEBHOOK_URL, or undefined when none is set; a URL we may not send to stops the function. */
export function webhookSender(): HttpWebhookSender | undefined {
  const url = process.env.WEBHOOK_URL;
  if (!url) return undefined;
  const refusal = endpointRefusal(url, allowLoopbackHttp());
  // The URL itself stays out of the message: it may carry a token of the shop's.
  if (refusal) throw new Error(`WEBHOOK_URL is refused: ${refusal}`);
  const secret = cachedSecret('webhookSecret', (text) => parseWebhookSecret(text, isWebhookSecret));
  return new HttpWebhookSender({ url, secrets: () => secret.get(), now: Date.now });
}

/**
 * Every store's sender: the default store's is `defaultSender` (WEBHOOK_URL with the deployment's webhook secret, if set),
 * another store's goes to its own endpoint with its own secrets (runtime/store-accounts.ts).
 */
export function storeWebhookSenders(defaultSender: WebhookSender | undefined): StoreWebhookSenders {
  return new StoreWebhookEndpoints(defaultSender, storeAccounts, {
    allowLoopbackHttp: allowLoopbackHttp(),
    now: Date.now,
  });
}

/** The dispatcher's timing, from the environment; WEBHOOK_RETRY_SCALE shrinks every retry wait and the window. */
export const dispatchTiming: Omit<DispatchOptions, 'timeLeftMs' | 'onGaveUp' | 'wake'> = {
  now: Date.now,
  sendTimeoutMs: numberEnv('WEBHOOK_TIMEOUT_MS', 10_000),
  leaseMs: numberEnv('WEBHOOK_LEASE_MS', 15_000),
  outboxGraceMs,
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
