// An item's size as DynamoDB counts it, for its 400 KB limit and its capacity units:
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/** DynamoDB refuses a write that would make an item larger than this, names and values counted. */
export const MAX_ITEM_BYTES = 400 * 1024;

type Value = Partial<Record<keyof AttributeValue, unknown>>;

/** Bytes DynamoDB counts for an item: each attribute's name (UTF-8) plus its value. */
export function itemSize(item: Record<string, Value>): number {
  let size = 0;
  for (const name in item) size += Buffer.byteLength(name) + valueSize(item[name]);
  return size;
}

/** Strings in UTF-8 bytes, binaries in bytes, numbers by their significant digits; maps and lists add 3 bytes and 1 per element. */
function valueSize(value: Value): number {
  if (typeof value.S === 'string') return Buffer.byteLength(value.S);
  if (typeof value.N === 'string') return numberSize(value.N);
  if (value.B !== undefined) return binarySize(value.B);
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (Array.isArray(value.SS))
    return value.SS.reduce((sum: number, s: string) => sum + Buffer.byteLength(s), 0);
  if (Array.isArray(value.NS)) return value.NS.reduce((sum: number, n: string) => sum + numberSize(n), 0);
  if (Array.isArray(value.BS)) return value.BS.reduce((sum: number, b: unknown) => sum + binarySize(b), 0);
  if (Array.isArray(value.L)) return 3 + value.L.reduce((sum: number, v: Value) => sum + 1 + valueSize(v), 0);
  if (value.M && typeof value.M === 'object') {
    const map = value.M as Record<string, Value>;
    return 3 + Object.keys(map).length + itemSize(map);
  }
  return 0;
}

/** On the wire a binary is base64 text; in the SDK, bytes. */
function binarySize(value: unknown): number {
  return typeof value === 'string' ? Buffer.from(value, 'base64').length : (value as Uint8Array).length;
}

/** One byte per two significant digits (leading and trailing zeros trimmed), plus one. */
function numberSize(text: string): number {
  const digits = text.replace(/^[-+]?0*|[eE].*$|\./g, '').replace(/0+$/, '').length;
  return Math.ceil(Math.max(digits, 1) / 2) + 1;
}
