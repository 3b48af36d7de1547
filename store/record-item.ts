import type { InvoiceRecord, RefundRecord } from '../domain/model';
import { itemKey, str, type Item } from './table';

/** The kinds of item keyed by an id: invoice and refund records, and webhook deliveries (by event id). */
export type RecordKind = 'INVOICE' | 'REFUND' | 'WEBHOOK';

/**
 * Fields an item leaves out while they hold these values, as a new record does; a read puts them back. A claim
 * holds every one of them, and most records keep their error, attempt and cancellation at these values for life:
 * smaller items are cheaper to write and to read.
 */
const LEFT_OUT = {
  INVOICE: {
    status: null,
    error: null,
    history: [],
    attempt: 1,
    invoice: null,
    payment: null,
    cancelled: false,
  } satisfies Partial<InvoiceRecord>,
  REFUND: { status: null, error: null, history: [], withdrawal: null } satisfies Partial<RefundRecord>,
  WEBHOOK: {},
} as const satisfies Record<RecordKind, Record<string, unknown>>;

/** Requests read from an item written before requests lived apart: the next write of their record sends them. */
const readFromData = new WeakSet<object>();

/** A record's primary key. */
export function recordKey(kind: RecordKind, foreignId: string): Item {
  return itemKey(`${kind}#${foreignId}`, kind);
}

/** A new record's item attributes besides its keys: `data` (JSON) and its request, apart. */
export function recordAttributes(kind: RecordKind, record: { request?: object }): Item {
  return { data: str(storedData(kind, record)), ...requestAttribute(record) };
}

/** The JSON kept in `data`: the record without its version, its request or the fields at their left-out values. */
export function storedData(kind: RecordKind, record: object): string {
  const leftOut: Record<string, unknown> = LEFT_OUT[kind];
  // Undefined values are not written: a copy keeps the record's shape, where deleting would not.
  const kept: Record<string, unknown> = { ...record, version: undefined, request: undefined };
  for (const name in leftOut) {
    const value = kept[name];
    const usual = leftOut[name];
    if (value === usual || (Array.isArray(usual) && Array.isArray(value) && value.length === 0)) {
      kept[name] = undefined;
    }
  }
  return JSON.stringify(kept);
}

/**
 * The `request` attribute of a write of `record` over `previous`, the record its item holds: none when the request is
 * the one `previous` has. A request never changes once claimed (a takeover by another request brings another
 * object), so most writes leave the attribute as it is instead of sending it again.
 */
export function requestAttribute(record: { request?: object }, previous?: { request?: object }): Item {
  const { request } = record;
  if (request === undefined) return {};
  const held = previous?.request === request && !readFromData.has(request);
  return held ? {} : { request: str(JSON.stringify(request)) };
}

/** The record an item holds, in the form it had when written; an item from before requests lived apart reads too. */
export function recordFromItem<T extends { version: number }>(kind: RecordKind, item: Item): T {
  const record = JSON.parse(item.data.S ?? '{}') as Record<string, unknown>;
  record.version = Number(item.version.N);
  const request = item.request?.S;
  if (request !== undefined) record.request = JSON.parse(request) as object;
  else if (typeof record.request === 'object' && record.request !== null) readFromData.add(record.request);
  const leftOut: Record<string, unknown> = LEFT_OUT[kind];
  for (const name in leftOut) {
    if (!(name in record)) record[name] = Array.isArray(leftOut[name]) ? [] : leftOut[name];
  }
  return record as unknown as T;
}
