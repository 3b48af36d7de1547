import type * as v from 'valibot';
import type { ClearableSetting, NewStore, StoreChanges } from '../domain/store-settings';
import { STORE_ID, type StoreId } from '../domain/stores';
import { InvalidRequestError } from './errors';
import type { ApiRequest } from './route';
import {
  LIST_LIMIT,
  noQuery,
  rotateTokensBody,
  rotateWebhookSecretBody,
  storeBody,
  storeChangesBody,
  storeListQuery,
} from './schemas/inputs';
import { isPlainObject, readFields } from './validate';

/** Where this API is served, as the caller reached it: a store's callback URL starts with it. */
export function apiBaseOf({ headers }: ApiRequest): string {
  return `${headers['x-forwarded-proto'] ?? 'http'}://${headers.host ?? 'localhost'}`;
}

/** `{store_id}` in the path. */
export function storeIdInput({ path }: ApiRequest): StoreId {
  const storeId = path.store_id;
  if (!storeId || !STORE_ID.test(storeId)) {
    throw new InvalidRequestError({
      store_id:
        'must be 1 to 32 lowercase letters, digits or "-", starting and ending with a letter or a digit',
    });
  }
  return storeId;
}

/** A store's settings from a create's or a change's fields, by the domain's names: a field left out is absent. */
function settingsOf({
  name,
  webhook_url,
  processing,
  travel_rule,
  travel_rule_sender,
  claim_link_days,
  requests_per_second,
}: v.InferOutput<typeof storeChangesBody>) {
  return {
    ...(name !== undefined && { name }),
    ...(webhook_url != null && { webhookUrl: webhook_url }),
    ...(travel_rule !== undefined && { travelRule: travel_rule }),
    ...(travel_rule_sender !== undefined && { travelRuleSender: travel_rule_sender }),
    ...(claim_link_days != null && { claimLinkDays: claim_link_days }),
    ...(requests_per_second != null && { requestsPerSecond: requests_per_second }),
    ...(processing && {
      processing: {
        apiKey: processing.api_key,
        secretKey: processing.secret_key,
        baseUrl: processing.base_url,
      },
    }),
  };
}

/** The settings a change clears with a null, by the API's name and the domain's. */
const CLEARABLE = {
  webhook_url: 'webhookUrl',
  claim_link_days: 'claimLinkDays',
  requests_per_second: 'requestsPerSecond',
} as const satisfies Record<string, ClearableSetting>;

/** readFields reads a null as left out, so a change's clearing nulls are read from its body. */
function clearedIn(body: unknown): Partial<Record<ClearableSetting, null>> {
  if (!isPlainObject(body)) return {};
  const cleared = Object.entries(CLEARABLE).filter(([field]) => body[field] === null);
  return Object.fromEntries(cleared.map(([, setting]) => [setting, null]));
}

export function newStoreInput(request: ApiRequest): { store: NewStore; apiBase: string } {
  const fields = readFields(storeBody, request.body);
  return { store: { ...settingsOf(fields), id: fields.id, name: fields.name }, apiBase: apiBaseOf(request) };
}

/**
 * A field left out keeps its value; `"webhook_url": null` clears the store's endpoint, and `"claim_link_days": null`
 * and `"requests_per_second": null` its own term and limit, so the deployment's apply again.
 */
export function storeChangesInput(request: ApiRequest): {
  storeId: StoreId;
  changes: StoreChanges;
  apiBase: string;
} {
  const storeId = storeIdInput(request);
  const fields = readFields(storeChangesBody, request.body);
  return {
    storeId,
    changes: { ...settingsOf(fields), ...clearedIn(request.body) },
    apiBase: apiBaseOf(request),
  };
}

/** A rotation's body: how long what it replaces keeps working. */
function rotationInput(body: typeof rotateTokensBody | typeof rotateWebhookSecretBody) {
  return (request: ApiRequest): { storeId: StoreId; graceSeconds: number; apiBase: string } => {
    const storeId = storeIdInput(request);
    // Only leaving the field out takes the default: a null is no number of seconds.
    const { grace_seconds = 86_400 } = readFields(body, request.body ?? {}, 'body', ['grace_seconds']);
    return { storeId, graceSeconds: grace_seconds, apiBase: apiBaseOf(request) };
  };
}

export const rotateTokensInput = rotationInput(rotateTokensBody);
export const rotateWebhookSecretInput = rotationInput(rotateWebhookSecretBody);

/** A route that names its store in the path and takes nothing else. */
export function storeInput(request: ApiRequest): { storeId: StoreId; apiBase: string } {
  readFields(noQuery, request.query, 'query');
  return { storeId: storeIdInput(request), apiBase: apiBaseOf(request) };
}

export function storeListInput(request: ApiRequest): {
  limit: number;
  after?: { createdAt: number; id: StoreId };
  apiBase: string;
} {
  const { limit = LIST_LIMIT, cursor } = readFields(storeListQuery, request.query, 'query');
  return {
    limit,
    ...(cursor?.foreignId !== undefined && { after: { createdAt: cursor.at, id: cursor.foreignId } }),
    apiBase: apiBaseOf(request),
  };
}

/** `GET /tokens/current` takes no parameters. */
export function currentTokenInput({ query }: ApiRequest): void {
  readFields(noQuery, query, 'query');
}
