// Request amounts: plain decimal strings, normalised to the spec's 8 fractional digits, never through a float.
import { Decimal } from 'decimal.js';
import { ProcessingValidationError } from './errors';

const PLAIN_DECIMAL = /^\d+(\.\d+)?$/;
const FRACTION_DIGITS = 8;

export interface AmountOptions {
  allowZero?: boolean;
  /** Names the operation in the error; defaults to `validateAmount`. */
  operation?: string;
}

/** `"10.5"` → `"10.50000000"`. Refuses, naming the field, anything that is not an exact non-negative decimal. */
export function toAmount8(value: unknown, field: string, options: AmountOptions = {}): string {
  const refuse = (reason: string) =>
    new ProcessingValidationError({
      operation: options.operation ?? 'validateAmount',
      code: 'invalid_request',
      message: `${field} ${reason}`,
      fields: { [field]: reason },
    });
  if (typeof value !== 'string') throw refuse('must be a decimal string');
  if (!PLAIN_DECIMAL.test(value)) throw refuse('must be a plain non-negative decimal such as "10.5"');
  const amount = new Decimal(value);
  if (amount.decimalPlaces() > FRACTION_DIGITS)
    throw refuse(`has more than ${FRACTION_DIGITS} fractional digits`);
  if (amount.isZero() && !options.allowZero) throw refuse('must be greater than zero');
  return amount.toFixed(FRACTION_DIGITS);
}
