import type { InvoiceRecord, RefundRecord } from '../domain/model';
import { itemKey, str, type Item } from './table';

/** The kinds of item keyed by an id: invoice and refund records, and webhook deliveries (by event id). */
export type RecordKind = 'INVOICE' | 'REFUND' | 'WEBHOOK';

/**
 * Fields an item leaves out while they hold these values, as a new record does; a read puts them back. Smaller
 * items are cheaper to write and to read, and most writes of a record happen before its service has answered.
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

/**
 * Requests known to be in the `request` attribute of the item they were read from or written to. A record's
 * request never changes once claimed (a takeover by another request brings a new object), so a write of a record
 * whose request is among them leaves the attribute as it is instead of sending it again.
 */
const keptApart = new WeakSet<object>();

/** A record's primary key. */
export function recordKey(kind: RecordKind, foreignId: string): Item {
  return itemKey(`${kind}#${foreignId}`, kind);
}

/** A record's item attributes besides its keys: `data` (JSON) without its version and its request, which live apart. */
export function recordAttributes(kind: RecordKind, record: { version: number; request?: object }): Item {
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

/** The `request` attribute, unless the item already holds this very request. */
export function requestAttribute(record: { request?: object }): Item {
  const { request } = record;
  return request === undefined || keptApart.has(request) ? {} : { request: str(JSON.stringify(request)) };
}

/** Notes that a write holding `requestAttribute(record)` has landed: later writes of the record leave it out. */
export function requestWritten(record: { request?: object }): void {
  if (record.request !== undefined) keptApart.add(record.request);
}

/** The record an item holds, in the form it had when written; an item from before requests lived apart reads too. */
export function recordFromItem<T extends { version: number }>(kind: RecordKind, item: Item): T {
  const record = JSON.parse(item.data.S ?? '{}') as Record<string, unknown>;
  record.version = Number(item.version.N);
  const request = item.request?.S;
  if (request !== undefined) {
    record.request = JSON.parse(request) as object;
    keptApart.add(record.request as object);
  }
  const leftOut: Record<string, unknown> = LEFT_OUT[kind];
  for (const name in leftOut) {
    if (!(name in record)) record[name] = Array.isArray(leftOut[name]) ? [] : leftOut[name];
  }
  return record as unknown as T;
}
