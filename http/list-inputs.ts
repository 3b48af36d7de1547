import { INVOICE_STATUS_NAMES, type InvoiceStatusName } from '../domain/outcome';
import type { CreatedQuery } from '../domain/ports';
import { decodeCursor } from './cursor';
import type { ApiRequest } from './route';
import { FOREIGN_ID, FieldReader } from './validate';

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/**
 * ISO 8601 in UTC, to the second or the millisecond: the time format of the API's answers, and of the lists'
 * bounds.
 */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
const UTC_MESSAGE = 'must be an ISO 8601 UTC time';
/** The history's `since` takes any offset, but must have one: a time without it would be read in the server's zone. */
const ISO_WITH_OFFSET = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,9})?)?(Z|[+-]\d\d:\d\d)$/;
const OFFSET_MESSAGE = 'must be an ISO 8601 time with its offset, such as 2026-11-23T07:52:25.679Z';

/** GET /invoices: `status`, `created_after`, `created_before`, `limit`, `cursor`. */
export function invoiceListInput({ query }: ApiRequest): {
  query: CreatedQuery;
  /** The status an invoice view shows (domain/outcome.ts). */
  status?: InvoiceStatusName;
} {
  const fields = new FieldReader(query, 'query');
  const status = fields.oneOf('status', INVOICE_STATUS_NAMES);
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
  const since = readTime(fields, 'since', ISO_WITH_OFFSET, OFFSET_MESSAGE) ?? 0;
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

function readTime(fields: FieldReader, name: string, pattern = ISO_UTC, message = UTC_MESSAGE) {
  const text = fields.string(name, { pattern, patternMessage: message });
  if (text === undefined) return undefined;
  const ms = Date.parse(text);
  // Date.parse rolls 2026-02-30 over into March; a real date reads back as written.
  if (Number.isNaN(ms) || !readsBack(ms, text)) {
    fields.reject(name, message);
    return undefined;
  }
  return ms;
}

/** Whether `ms`, shown at `text`'s offset, has the date and time `text` was written with. */
function readsBack(ms: number, text: string): boolean {
  const written = /^[\d-]+T[\d:]+/.exec(text)![0];
  const offset = /([+-])(\d\d):(\d\d)$/.exec(text);
  const minutes = offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) : 0;
  return new Date(ms + minutes * 60_000).toISOString().startsWith(written);
}

function readCursor(fields: FieldReader, foreignId?: (value: string) => boolean) {
  const text = fields.string('cursor');
  if (text === undefined) return undefined;
  const cursor = decodeCursor(text, foreignId);
  if (!cursor) fields.reject('cursor', 'must be a next_cursor this list gave');
  return cursor;
}
