import type { StoreId } from '../domain/stores';
import { scopedKey } from './store-scope';
import { itemKey, num, str, type Item } from './table';

/** The kinds of item keyed by an id: invoice and refund records, and webhook deliveries (by event id). */
export type RecordKind = 'INVOICE' | 'REFUND' | 'WEBHOOK';

/** A record's primary key, in its store's scope. */
export function recordKey(kind: RecordKind, foreignId: string, storeId: StoreId): Item {
  return itemKey(scopedKey(storeId, `${kind}#${foreignId}`), kind);
}

/** A record's attributes besides its keys and index keys: the record as JSON in `data`, and its `version`. */
export function recordAttributes(record: { version: number }): Item {
  return { data: str(storedData(record)), version: num(record.version) };
}

/** The JSON kept in `data`: the record but its version, which has an attribute of its own for conditions. */
export function storedData(record: { version: number }): string {
  return JSON.stringify({ ...record, version: undefined });
}

/** The record an item holds. */
export function recordFromItem<T extends { version: number }>(item: Item): T {
  // Set on the parsed object rather than spread into a copy: the JSON holds no version of its own.
  const record = JSON.parse(item.data.S ?? '{}') as T;
  record.version = Number(item.version.N);
  return record;
}
