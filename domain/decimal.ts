import { Decimal as DecimalJs } from 'decimal.js';

/**
 * decimal.js for money. Its default precision, 20 significant digits, rounds the sums and differences of amounts
 * such as 1000.123456789012345678 (an 18-decimal token); the amounts read from the service have at most 40
 * integer and 40 fractional digits (processing/json.ts), so 100 keeps every digit.
 */
export const Decimal = DecimalJs.clone({ precision: 100 });
export type Decimal = DecimalJs;
