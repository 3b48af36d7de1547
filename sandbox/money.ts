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
/** With 8 decimals this stays within Money's 40 digits of precision, so sums of amounts remain exact. */
const MAX_INTEGER_DIGITS = 30;

/** A JSON number (kept lossless) or a numeric string as a Decimal; undefined for anything else or too large. */
export function toAmount(value: unknown): Amount | undefined {
  const text = isLosslessNumber(value) ? value.toString() : typeof value === 'string' ? value : undefined;
  if (text === undefined || !NUMERIC.test(text)) return undefined;
  const amount = new Money(text);
  // Checked on the exponent (integer digits less one): `1e9000000000000000` written out would fill the heap.
  return amount.isFinite() && amount.e < MAX_INTEGER_DIGITS ? amount : undefined;
}

export const fixed8 = (amount: Amount): string => amount.toFixed(8);

export const hasAtMost8Places = (amount: Amount): boolean => amount.decimalPlaces() <= 8;

export const roundDown8 = (amount: Amount): Amount => amount.toDecimalPlaces(8, Decimal.ROUND_DOWN);

export const roundUp8 = (amount: Amount): Amount => amount.toDecimalPlaces(8, Decimal.ROUND_UP);
