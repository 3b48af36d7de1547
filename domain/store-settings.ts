// A store's settings: what a create gives and a change sets or clears, how their URLs are checked, and how they
// apply to the store item. domain/store-admin.ts and domain/store-creates.ts write what they answer.
import { InvalidFieldsError } from './errors';
import type { StoreId, StoreRecord, StoreSecretValues } from './stores';

/** A store's own account at the payment service: its keys go to the store's secret, its base URL to the item. */
export interface OwnAccount {
  apiKey: string;
  secretKey: string;
  baseUrl: string;
}

/** What a store's owner sets; each one absent means what StoreRecord says it means. */
export type StoreSettings = Pick<
  StoreRecord,
  'name' | 'webhookUrl' | 'travelRule' | 'travelRuleSender' | 'claimLinkDays' | 'requestsPerSecond'
>;

/** The settings a change may clear: then the deployment's endpoint, term or limit applies again. */
export type ClearableSetting = 'webhookUrl' | 'claimLinkDays' | 'requestsPerSecond';

export type NewStore = StoreSettings & {
  id: StoreId;
  /** Absent: the store shares the deployment's processing account. */
  processing?: OwnAccount;
};

/** A setting left out keeps its value; a null clears one that may be cleared. */
export type StoreChanges = {
  [K in keyof StoreSettings]?: StoreSettings[K] | (K extends ClearableSetting ? null : never);
} & { processing?: OwnAccount };

/** Which URLs a store's settings may name. */
export interface UrlPolicy {
  /** Why a webhook or payment service URL may not be used (not https, credentials in it); undefined when it may. */
  urlRefusal: (url: string) => string | undefined;
  /** Whether this deployment's records make webhook events: without them, no store's endpoint would get any. */
  webhooksOn: boolean;
}

/** The store item with `changes` applied: a setting left out keeps its value, and a null clears it. */
export function withSettings(record: StoreRecord, changes: StoreChanges): StoreRecord {
  const { webhookUrl: _url, claimLinkDays: _term, requestsPerSecond: _limit, ...rest } = record;
  const kept = <K extends ClearableSetting>(key: K) =>
    changes[key] === undefined ? record[key] : (changes[key] ?? undefined);
  const webhookUrl = kept('webhookUrl');
  const claimLinkDays = kept('claimLinkDays');
  const requestsPerSecond = kept('requestsPerSecond');
  return {
    ...rest,
    ...(changes.name !== undefined && { name: changes.name }),
    ...(changes.travelRule !== undefined && { travelRule: changes.travelRule }),
    ...(changes.travelRuleSender !== undefined && { travelRuleSender: changes.travelRuleSender }),
    ...(webhookUrl !== undefined && { webhookUrl }),
    ...(requestsPerSecond !== undefined && { requestsPerSecond }),
    ...(claimLinkDays !== undefined && { claimLinkDays }),
  };
}

/** Refused before anything is written, each URL named as its field; the URL itself is never quoted. */
export function checkUrls(
  { webhookUrl, processing }: Pick<StoreChanges, 'webhookUrl' | 'processing'>,
  { urlRefusal, webhooksOn }: UrlPolicy,
): void {
  const refusals: Record<string, string> = {};
  const webhook = webhookUrl == null ? undefined : urlRefusal(webhookUrl);
  if (webhook) refusals.webhook_url = `is refused: ${webhook}`;
  else if (webhookUrl != null && !webhooksOn) {
    refusals.webhook_url =
      "cannot be set: this deployment sends no webhooks (its stage's webhookUrl is not set)";
  }
  const base = processing && urlRefusal(processing.baseUrl);
  if (base) refusals['processing.base_url'] = `is refused: ${base}`;
  if (Object.keys(refusals).length > 0) throw new InvalidFieldsError(refusals);
}

/** What the store's secret keeps of its own account: the keys, never the base URL. */
export function keysOf({ apiKey, secretKey }: OwnAccount): NonNullable<StoreSecretValues['processing']> {
  return { apiKey, secretKey };
}
