// Lossless reading of the service's JSON: numeric amounts become exact decimal strings, other numbers stay numbers.
import { Decimal } from '../domain/decimal';
import { isLosslessNumber, isSafeNumber, parse } from 'lossless-json';

/** Keys whose values are money or rates wherever they appear (the transaction record sends them as numbers). */
const AMOUNT_KEYS = new Set([
  'amount',
  'remaining_amount',
  'balance',
  'sender_amount',
  'received_amount',
  'rate_from',
  'rate_to',
  'min_amount',
  'min_amount_deposit_with_exchange',
]);

const MIN_FRACTION_DIGITS = 8;
/**
 * Digits an amount may need on either side of the point once written out: far more than any real amount or rate
 * (the finest token units have 18 decimals), and it stops a short token such as `1e9000000000000000` from being
 * expanded into more memory than the process has.
 */
export const MAX_AMOUNT_DIGITS = 40;

/** An amount key directly followed by a number token; inside a JSON string the quotes would be escaped. */
const NUMERIC_AMOUNT = new RegExp(`"(?:${[...AMOUNT_KEYS].join('|')})"\\s*:\\s*-?\\d`);

/**
 * Throws SyntaxError on invalid JSON, RangeError on an amount beyond MAX_AMOUNT_DIGITS or a non-amount number a
 * JS number cannot hold exactly.
 */
export function parseJson(text: string): unknown {
  // Most answers carry amounts as strings and only small integers as numbers: the native parser is exact there.
  if (!NUMERIC_AMOUNT.test(text)) {
    const value = parseIfIntegersOnly(text);
    if (value !== undefined) return value;
  }
  return parse(text, (key, value) => {
    if (!isLosslessNumber(value)) return value;
    if (AMOUNT_KEYS.has(key)) return decimalToken(value.value, key);
    if (!isSafeNumber(value.value)) throw new RangeError(`number at "${key}" cannot be read exactly`);
    return Number(value.value);
  });
}

/** The token's exact value in plain notation with at least 8 fractional digits; no digit is dropped. */
function decimalToken(token: string, key: string): string {
  const value = new Decimal(token);
  const written = /^-?\d+(?:\.(\d+))?$/.exec(token)?.[1]?.length ?? value.decimalPlaces();
  const places = Math.max(written, MIN_FRACTION_DIGITS);
  // Checked before anything is expanded (`e` is the count of integer digits less one). Beyond decimal.js's own
  // exponent range a token reads as Infinity, or as 0 although it has a non-zero digit.
  const outOfRange =
    !value.isFinite() ||
    (value.isZero() && /[1-9]/.test(token.replace(/e.*$/i, ''))) ||
    value.e >= MAX_AMOUNT_DIGITS ||
    places > MAX_AMOUNT_DIGITS;
  if (outOfRange) {
    throw new RangeError(
      `amount at "${key}" needs more than ${MAX_AMOUNT_DIGITS} digits on one side of the point`,
    );
  }
  return value.toFixed(places);
}

/**
 * JSON.parse, or undefined when some number is not a safe integer and so needs the lossless reading. The check
 * walks the parsed value: a reviver would do the same work several times slower.
 */
function parseIfIntegersOnly(text: string): unknown {
  const value: unknown = JSON.parse(text);
  const pending = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next === 'number' && !Number.isSafeInteger(next)) return undefined;
    // One push at a time: spreading a long list into push's arguments would overflow the stack.
    if (typeof next === 'object' && next !== null)
      for (const child of Object.values(next)) pending.push(child);
  }
  return value;
}
