// Medusa's amounts (numbers, strings, bignumber.js values, its BigNumber class) as exact decimal strings.
import Decimal from 'decimal.js';
import type { BigNumberInput } from '@medusajs/types';
import { MerchantPaymentsError } from './errors';

// The plugin takes at most 8 fractional digits; more would need rounding, which money never gets silently.
const MAX_FRACTION_DIGITS = 8;

/** The number inside any of Medusa's amount shapes, as text: a float only ever through its shortest form. */
function amountText(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim();
  // String() gives the shortest decimal that reads back as this number: the amount Medusa meant, not the float.
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value !== 'object' || value === null) return undefined;
  const shape = value as Record<string, unknown>;
  // Medusa's BigNumber keeps the exact value in `raw`; a raw value is `{value, precision}`.
  if (typeof shape.raw === 'object' && shape.raw !== null) return amountText(shape.raw);
  if (typeof shape.value === 'string' || typeof shape.value === 'number') return amountText(shape.value);
  if (typeof shape.bigNumber === 'object' && shape.bigNumber !== null) return amountText(shape.bigNumber);
  // A bignumber.js value: toFixed() without digits writes every digit, never an exponent.
  if (typeof shape.toFixed === 'function') return String((shape.toFixed as () => unknown).call(value));
  return undefined;
}

/** An amount greater than zero as a plain decimal string ("25.5"); `what` names it in the error. */
export function decimalString(value: BigNumberInput | unknown, what: string): string {
  const text = amountText(value);
  let amount: Decimal;
  try {
    amount = new Decimal(text ?? 'NaN');
  } catch {
    throw new MerchantPaymentsError('invalid_data', 'invalid_amount', `${what} is not a number`);
  }
  if (!amount.isFinite() || amount.lte(0)) {
    throw new MerchantPaymentsError('invalid_data', 'invalid_amount', `${what} must be greater than zero`);
  }
  if (amount.decimalPlaces() > MAX_FRACTION_DIGITS) {
    throw new MerchantPaymentsError(
      'invalid_data',
      'invalid_amount',
      `${what} has more than ${MAX_FRACTION_DIGITS} decimal places; the plugin would have to round it`,
    );
  }
  return amount.toFixed();
}

/** Whether two decimal strings are the same amount ("25.5" and "25.50000000" are). */
export function sameAmount(a: string, b: string): boolean {
  return new Decimal(a).eq(new Decimal(b));
}
