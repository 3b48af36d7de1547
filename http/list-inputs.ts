import type { CreatedQuery } from '../domain/ports';
import { decodeCursor } from './cursor';
import type { ApiRequest } from './route';
import { FOREIGN_ID, FieldReader } from './validate';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/** The statuses an invoice view shows (http/views.ts). */
export const INVOICE_STATUSES = [
  'creating',
  'created',
  'pending',
  'processing',
  'confirmed',
  'failed',
  'rejected',
  'abandoned',
] as const;

export type InvoiceStatusFilter = (typeof INVOICE_STATUSES)[number];

/** ISO 8601 in UTC, to the second or the millisecond: the one time format of the API. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** GET /invoices: `status`, `created_after`, `created_before`, `limit`, `cursor`. */
export function invoiceListInput({ query }: ApiRequest): {
  query: CreatedQuery;
  status?: InvoiceStatusFilter;
} {
  const fields = new FieldReader(query, 'query');
  const status = fields.oneOf('status', INVOICE_STATUSES);
  const list = readRecordList(fields);
  fields.done();
  return { query: list, status };
}

/** GET /refunds: `created_after`, `created_before`, `limit`, `cursor`. */
export function refundListInput({ query }: ApiRequest): CreatedQuery {
  const fields = new FieldReader(query, 'query');
  const list = readRecordList(fields);
  fields.done();
  return list;
}

/** GET /balances/history: `since` (taken at or after), `limit`, `cursor`; oldest first. */
export function historyInput({ query }: ApiRequest): { since: number; limit: number } {
  const fields = new FieldReader(query, 'query');
  const since = readTime(fields, 'since') ?? 0;
  const limit = readLimit(fields);
  const cursor = readCursor(fields);
  fields.done();
  // A cursor continues after the last snapshot it was given with; `since` still bounds the list.
  return { since: cursor ? Math.max(since, cursor.at + 1) : since, limit };
}

/** `created_after` and `created_before` are both strict, as they read. */
function readRecordList(fields: FieldReader): CreatedQuery {
  const after = readTime(fields, 'created_after');
  const before = readTime(fields, 'created_before');
  if (after !== undefined && before !== undefined && before <= after) {
    fields.reject('created_before', 'must be later than created_after');
  }
  const cursor = readCursor(fields, (foreignId) => FOREIGN_ID.test(foreignId));
  return {
    limit: readLimit(fields),
    createdFrom: after === undefined ? undefined : after + 1,
    createdBefore: before,
    after:
      cursor?.foreignId === undefined ? undefined : { createdAt: cursor.at, foreignId: cursor.foreignId },
  };
}

function readLimit(fields: FieldReader): number {
  const limit = fields.integer('limit') ?? DEFAULT_LIMIT;
  if (limit < 1 || limit > MAX_LIMIT) fields.reject('limit', `must be between 1 and ${MAX_LIMIT}`);
  return limit;
}

function readTime(fields: FieldReader, name: string): number | undefined {
  const text = fields.string(name, { pattern: ISO_UTC, patternMessage: 'must be an ISO 8601 UTC time' });
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  // Date.parse rolls 2026-02-30 over into March; a real date reads back as written.
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 19) !== text.slice(0, 19)) {
    fields.reject(name, 'must be an ISO 8601 UTC time');
    return undefined;
  }
  return ms;
}

function readCursor(fields: FieldReader, foreignId?: (value: string) => boolean) {
  const text = fields.string('cursor');
  if (text === undefined) return undefined;
  const cursor = decodeCursor(text, foreignId);
  if (!cursor) fields.reject('cursor', 'must be a next_cursor this list gave');
  return cursor;
}
