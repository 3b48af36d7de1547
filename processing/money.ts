// Request amounts: plain decimal strings, normalised to the spec's 8 fractional digits, never through a float.
import { ProcessingValidationError } from './errors';

/** The whole digits and the fraction's, of a plain decimal. */
const PLAIN_DECIMAL = /^(\d+)(?:\.(\d+))?$/;
const FRACTION_DIGITS = 8;
/**
 * 30 integer and 8 fractional digits are 38 significant digits, as many as a DynamoDB number holds: more than any
 * real amount needs, and no amount can swell a record past DynamoDB's item limit or a request to the service.
 */
const INTEGER_DIGITS = 30;
/** The text too, so that leading or trailing zeros cannot make it long: room for every digit and some zeros. */
const MAX_LENGTH = 64;

export interface AmountOptions {
  allowZero?: boolean;
  /** Names the operation in the error; defaults to `validateAmount`. */
  operation?: string;
}

/** `"10.5"` → `"10.50000000"`. Refuses, naming the field, anything that is not an exact non-negative decimal. */
export function toAmount8(value: unknown, field: string, options: AmountOptions = {}): string {
  if (typeof value !== 'string') throw refusal(field, options, 'must be a decimal string');
  if (value.length > MAX_LENGTH) throw refusal(field, options, `must be at most ${MAX_LENGTH} characters`);
  const parts = PLAIN_DECIMAL.exec(value);
  if (!parts) throw refusal(field, options, 'must be a plain non-negative decimal such as "10.5"');
  // Written out digit by digit, no arithmetic: the leading and trailing zeros go, every other digit stays.
  const whole = parts[1].replace(/^0+(?=\d)/, '');
  const fraction = (parts[2] ?? '').replace(/0+$/, '');
  if (whole.length > INTEGER_DIGITS)
    throw refusal(field, options, `has more than ${INTEGER_DIGITS} integer digits`);
  if (fraction.length > FRACTION_DIGITS)
    throw refusal(field, options, `has more than ${FRACTION_DIGITS} fractional digits`);
  if (whole === '0' && fraction === '' && !options.allowZero)
    throw refusal(field, options, 'must be greater than zero');
  return `${whole}.${fraction.padEnd(FRACTION_DIGITS, '0')}`;
}

function refusal(field: string, options: AmountOptions, reason: string): ProcessingValidationError {
  return new ProcessingValidationError({
    operation: options.operation ?? 'validateAmount',
    code: 'invalid_request',
    message: `${field} ${reason}`,
    fields: { [field]: reason },
  });
}
