import type { InvoiceStatusName } from '../domain/outcome';
import type { CreatedQuery } from '../domain/ports';
import type { CursorPosition } from './cursor';
import type { ApiRequest } from './route';
import { exportQuery, historyQuery, invoiceListQuery, LIST_LIMIT, refundListQuery } from './schemas/inputs';
import { readFields } from './validate';

/** GET /invoices: `status`, `created_after`, `created_before`, `limit`, `cursor`. */
export function invoiceListInput({ query }: ApiRequest): {
  query: CreatedQuery;
  /** The status an invoice view shows (domain/outcome.ts). */
  status?: InvoiceStatusName;
} {
  const { status, ...list } = readFields(invoiceListQuery, query, 'query');
  return { query: createdQuery(list), status };
}

/** GET /refunds: `created_after`, `created_before`, `limit`, `cursor`. */
export function refundListInput({ query }: ApiRequest): CreatedQuery {
  return createdQuery(readFields(refundListQuery, query, 'query'));
}

/** GET /exports/*.csv: `created_after`, `created_before`, `cursor`; the period as given, for the next page's link. */
export function exportInput({ query }: ApiRequest): {
  query: Omit<CreatedQuery, 'limit'>;
  period: { created_after?: string; created_before?: string };
} {
  const { limit: _pageSize, ...created } = createdQuery(readFields(exportQuery, query, 'query'));
  return {
    query: created,
    period: { created_after: query.created_after, created_before: query.created_before },
  };
}

/** GET /balances/history: `since` (taken at or after), `limit`, `cursor`; oldest first. */
export function historyInput({ query }: ApiRequest): { since: number; limit: number } {
  const { since = 0, limit = LIST_LIMIT, cursor } = readFields(historyQuery, query, 'query');
  // A cursor continues after the last snapshot it was given with; `since` still bounds the list.
  return { since: cursor ? Math.max(since, cursor.at + 1) : since, limit };
}

/** `created_after` and `created_before` are both strict, as they read. */
function createdQuery(list: {
  created_after?: number;
  created_before?: number;
  limit?: number;
  cursor?: CursorPosition;
}): CreatedQuery {
  const { created_after: after, created_before: before, limit = LIST_LIMIT, cursor } = list;
  return {
    limit,
    createdFrom: after === undefined ? undefined : after + 1,
    createdBefore: before,
    after:
      cursor?.foreignId === undefined ? undefined : { createdAt: cursor.at, foreignId: cursor.foreignId },
  };
}
