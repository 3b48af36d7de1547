import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { ProcessingValidationError } from '../../processing/errors';
import { toAmount8 } from '../../processing/money';

describe('toAmount8', () => {
  it.each([
    ['10.5', '10.50000000'],
    ['10', '10.00000000'],
    ['0.00000001', '0.00000001'],
    ['007.10', '7.10000000'],
    ['1.123456780000', '1.12345678'],
    ['123456789012345678901234567890.12345678', '123456789012345678901234567890.12345678'],
  ])('normalises %s to %s', (input, expected) => {
    expect(toAmount8(input, 'amount')).toBe(expected);
  });

  it.each([
    [10.5, 'must be a decimal string'],
    ['NaN', 'plain non-negative decimal'],
    ['Infinity', 'plain non-negative decimal'],
    ['-1', 'plain non-negative decimal'],
    ['+1', 'plain non-negative decimal'],
    ['1e3', 'plain non-negative decimal'],
    [' 1', 'plain non-negative decimal'],
    ['1.', 'plain non-negative decimal'],
    ['.5', 'plain non-negative decimal'],
    ['', 'plain non-negative decimal'],
    ['0.000000001', 'more than 8 fractional digits'],
    [`1${'0'.repeat(30)}`, 'more than 30 integer digits'],
    ['0', 'greater than zero'],
    ['0.00000000', 'greater than zero'],
  ])('refuses %p naming the field', (input, reason) => {
    expect(() => toAmount8(input, 'sender_amount', { operation: 'createWithdrawal' })).toThrow(
      expect.objectContaining({
        constructor: ProcessingValidationError,
        operation: 'createWithdrawal',
        code: 'invalid_request',
        status: undefined,
        fields: { sender_amount: expect.stringContaining(reason) },
      }),
    );
  });

  it.each([
    ['250,000 digits', '9'.repeat(250_000)],
    ['65 characters of a small amount', `${'0'.repeat(60)}1.000`],
  ])('refuses a text of %s, naming the field', (_name, input) => {
    expect(() => toAmount8(input, 'amount')).toThrow(
      expect.objectContaining({ fields: { amount: 'must be at most 64 characters' } }),
    );
  });

  it('accepts zero when allowed', () => {
    expect(toAmount8('0', 'balance', { allowZero: true })).toBe('0.00000000');
  });

  it('keeps the exact value of any amount with up to 8 fractional digits', () => {
    const digits = (min: number, max: number) =>
      fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max });
    fc.assert(
      fc.property(digits(1, 30), digits(0, 8), (whole, fraction) => {
        const input = fraction ? `${whole}.${fraction}` : whole;
        fc.pre(!new Decimal(input).isZero());
        const amount = toAmount8(input, 'amount');
        expect(amount).toMatch(/^\d+\.\d{8}$/);
        expect(new Decimal(amount).eq(input)).toBe(true);
      }),
    );
  });

  it('writes and refuses every plain decimal as decimal.js reads it, leading and trailing zeros included', () => {
    const reference = (input: string) => {
      const amount = new Decimal(input);
      if (amount.e >= 30) return 'integer digits';
      if (amount.decimalPlaces() > 8) return 'fractional digits';
      if (amount.isZero()) return 'greater than zero';
      return amount.toFixed(8);
    };
    const outcome = (input: string) => {
      try {
        return toAmount8(input, 'amount');
      } catch (error) {
        const reason = (error as ProcessingValidationError).fields?.amount ?? '';
        return ['integer digits', 'fractional digits', 'greater than zero'].find((end) =>
          reason.endsWith(end),
        );
      }
    };
    const digits = (max: number) =>
      fc.string({ unit: fc.constantFrom(...'0000123456789'), minLength: 1, maxLength: max });
    fc.assert(
      fc.property(digits(34), fc.option(digits(12)), (whole, fraction) => {
        const input = fraction === null ? whole : `${whole}.${fraction}`;
        expect(outcome(input)).toBe(reference(input));
      }),
      { numRuns: 5_000 },
    );
  });
});
