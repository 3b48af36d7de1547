import type { AttributeValue } from '@aws-sdk/client-dynamodb';

const utf8 = (text: string) => Buffer.byteLength(text, 'utf8');

/**
 * An item's size as DynamoDB counts it against its 400 KB limit: each attribute's name and value in UTF-8 bytes, a
 * number about one byte per two significant digits plus one, a list or map 3 bytes plus 1 per element.
 * https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
 */
export function itemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((total, [name, value]) => total + utf8(name) + valueBytes(value), 0);
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return utf8(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  // On the wire a binary is base64 text.
  if (value.B !== undefined) return Buffer.from(value.B as unknown as string, 'base64').length;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.SS) return value.SS.reduce((total, text) => total + utf8(text), 0);
  if (value.NS) return value.NS.reduce((total, text) => total + numberBytes(text), 0);
  if (value.BS) return value.BS.reduce((total, bytes) => total + bytes.length, 0);
  if (value.L) return 3 + value.L.reduce((total, element) => total + 1 + valueBytes(element), 0);
  if (value.M) return 3 + itemBytes(value.M) + Object.keys(value.M).length;
  return 0;
}

function numberBytes(text: string): number {
  const digits = text
    .replace(/^[-+]?0*/, '')
    .replace(/[eE].*$/, '')
    .replace('.', '')
    .replace(/0+$/, '');
  return Math.ceil(digits.length / 2) + 1;
}
