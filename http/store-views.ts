import {
  DEFAULT_STORE_ID,
  DEFAULT_TRAVEL_RULE,
  DEFAULT_TRAVEL_RULE_SENDER,
  type StoreRecord,
} from '../domain/stores';
import { encodeCursor } from './cursor';
import { renderedViews } from './render-guard';
import { iso } from './views';

/** A store as the platform token reads it: never a key, a token or a secret. */
export function storeView(record: StoreRecord, apiBase: string) {
  return {
    id: record.id,
    name: record.name,
    status: record.status,
    account: record.account,
    base_url: record.baseUrl ?? null,
    webhook_url: record.webhookUrl ?? null,
    callback_url: record.account === 'own' ? `${apiBase}/callbacks/${record.id}` : null,
    travel_rule: record.travelRule ?? DEFAULT_TRAVEL_RULE,
    travel_rule_sender: record.travelRuleSender ?? DEFAULT_TRAVEL_RULE_SENDER,
    claim_link_days: record.claimLinkDays ?? null,
    requests_per_second: record.requestsPerSecond ?? null,
    created_at: iso(record.createdAt, 'created_at'),
    updated_at: iso(record.updatedAt, 'updated_at'),
  };
}

/** The default store: the deployment's own settings, with its webhook URL when the function is given it. */
export function defaultStoreView(webhookUrl: string | undefined) {
  return {
    id: DEFAULT_STORE_ID,
    name: 'Default store',
    status: 'active' as const,
    account: 'shared' as const,
    base_url: null,
    webhook_url: webhookUrl || null,
    callback_url: null,
    travel_rule: DEFAULT_TRAVEL_RULE,
    travel_rule_sender: DEFAULT_TRAVEL_RULE_SENDER,
    claim_link_days: null,
    requests_per_second: null,
    created_at: null,
    updated_at: null,
  };
}

/**
 * A page of stores; the next cursor holds the last store's creation time and id. A store no view can render is
 * left out (counted).
 */
export function storeListBody(
  page: { records: StoreRecord[]; more: boolean },
  apiBase: string,
  first: ReturnType<typeof defaultStoreView> | undefined,
) {
  // A first page of the default store alone continues from the start of the registry.
  const last = page.records.at(-1) ?? (first && { createdAt: 0, id: first.id });
  return {
    data: [...(first ? [first] : []), ...renderedViews(page.records, (record) => storeView(record, apiBase))],
    next_cursor: page.more && last ? encodeCursor({ at: last.createdAt, foreignId: last.id }) : null,
  };
}
