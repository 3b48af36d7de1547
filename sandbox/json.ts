import { LosslessNumber, parse, stringify } from 'lossless-json';

/** Parses JSON keeping every number as its exact digits (LosslessNumber); a repeated key keeps the last value. */
export function parseJson(text: string): unknown {
  return parse(text, null, { onDuplicateKey: ({ newValue }) => newValue });
}

export function toJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** A JSON number token written with exactly these digits, e.g. `0.00120000`. */
export function jsonNumber(decimal: string): LosslessNumber {
  return new LosslessNumber(decimal);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof LosslessNumber)
  );
}
