import Decimal from 'decimal.js';
import { isLosslessNumber } from 'lossless-json';

/** A private Decimal so that global Decimal settings elsewhere cannot change the sandbox's arithmetic. */
export const Money = Decimal.clone({
  precision: 40,
  rounding: Decimal.ROUND_HALF_UP,
  toExpNeg: -40,
  toExpPos: 40,
});
export type Amount = Decimal;

const NUMERIC = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/** A JSON number (kept lossless) or a numeric string as a Decimal; undefined for anything else. */
export function toAmount(value: unknown): Amount | undefined {
  const text = isLosslessNumber(value) ? value.toString() : typeof value === 'string' ? value : undefined;
  if (text === undefined || !NUMERIC.test(text)) return undefined;
  return new Money(text);
}

export const fixed8 = (amount: Amount): string => amount.toFixed(8);

export const hasAtMost8Places = (amount: Amount): boolean => amount.decimalPlaces() <= 8;

export const roundDown8 = (amount: Amount): Amount => amount.toDecimalPlaces(8, Decimal.ROUND_DOWN);

export const roundUp8 = (amount: Amount): Amount => amount.toDecimalPlaces(8, Decimal.ROUND_UP);
