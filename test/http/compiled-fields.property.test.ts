// readFields runs a schema's fields as plain steps for a body that passes them (http/validate.ts): whatever the
// body, it answers what valibot's reading of the schema does, the output or the fields at fault.
import fc from 'fast-check';
import { LosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import { InvalidRequestError } from '../../http/errors';
import * as inputs from '../../http/schemas/inputs';
import { compiledOf, fields, readFields, type FieldsSchema } from '../../http/validate';

const SCHEMAS = Object.entries(inputs).filter(
  (entry): entry is [string, FieldsSchema] => typeof entry[1] === 'object' && 'entries' in entry[1],
);

/** Values at the edges of every kind of field: valid ones, and each way to be wrong. */
const VALUES: unknown[] = [
  ...['', ' ', 'a', 'BTC', 'btc', 'EUR', 'order-1', '..', 'a~b', 'x'.repeat(51), 'x'.repeat(65)],
  ...['25.50', '0', '0.00', '1e5', '-1', '12.123456789', '1'.repeat(31), '007.10'],
  ...[
    'https://shop.example/paid',
    'http://a.b',
    'ftp://shop.example',
    'not a url',
    'https://' + 'x'.repeat(2050),
  ],
  ...['a@b.co', 'a@b', 'ab.co', '\u0000x', 'line\nbreak', 'tab\there', '\ud800', 'true', 'false', '15', '0'],
  ...['2026-11-23T07:52:25.679Z', '2026-02-30T00:00:00Z', 'fill_or_kill', 'good_until_expired'],
  true,
  false,
  new LosslessNumber('3'),
  new LosslessNumber('12.5'),
  new LosslessNumber('100'),
  {},
  { ref: 'a-1' },
  { 'bad key': 'x' },
  ['a'],
];

/** A valid body of each schema that has required fields, which the cases change a few fields of. */
const VALID: Record<string, Record<string, unknown>> = {
  checkoutBody: {
    foreign_id: 'order-1',
    amount: '25.50',
    currency: 'EUR',
    title: 'Order 1',
    email: 'a@b.co',
    url_success: 'https://shop.example/paid',
    url_failed: 'https://shop.example/failed',
  },
  orderRefundBody: { foreign_id: 'refund-1', address: 'bc1qexample' },
  refundBody: {
    foreign_id: 'refund-1',
    debited_currency: 'EUR',
    debited_amount: '10',
    currency: 'BTC',
    address: 'bc1qexample',
  },
  pairQuery: { from: 'EUR', to: 'BTC' },
};

/** The schema's valid body (if any) with up to three of its fields changed or taken out. */
const body = (name: string, keys: string[]) =>
  fc
    .array(fc.tuple(fc.constantFrom(...keys), fc.option(fc.constantFrom(...VALUES), { nil: undefined })), {
      maxLength: 3,
    })
    .map((changes) => {
      const given: Record<string, unknown> = { ...VALID[name] };
      for (const [key, value] of changes) {
        if (value === undefined) delete given[key];
        else given[key] = value;
      }
      return given;
    });

/** The first issue of each field, as readFields names them. */
function faults(issues: v.BaseIssue<unknown>[]): Record<string, string> {
  const named: Record<string, string> = {};
  for (const issue of issues)
    named[(issue.path ?? []).map(({ key }) => String(key)).join('.')] ??= issue.message;
  return named;
}

test.each(SCHEMAS)('%s: readFields answers as valibot does, for any body of its fields', (name, schema) => {
  const keys = Object.keys(schema.entries);
  let passed = 0;
  fc.assert(
    fc.property(keys.length > 0 ? body(name, keys) : fc.constant({}), (given) => {
      const expected = v.safeParse(schema, given);
      if (expected.success) passed += 1;
      let answered: unknown;
      try {
        answered = readFields(schema, given);
      } catch (error) {
        answered = error;
      }
      if (expected.success) {
        expect(answered).toStrictEqual(expected.output);
        expect(Object.keys(answered as object)).toEqual(Object.keys(expected.output));
        // A schema that compiles reads every body valibot passes without valibot.
        const compiled = compiledOf(schema);
        if (compiled) expect(compiled(given)).toStrictEqual(expected.output);
      } else {
        expect(answered).toBeInstanceOf(InvalidRequestError);
        expect((answered as InvalidRequestError).fields).toEqual(faults(expected.issues));
      }
    }),
    { numRuns: 2_000 },
  );
  // Both ways are taken often: the output compared, and the faults.
  if (keys.length > 0) expect(passed).toBeGreaterThan(200);
});

test('each body and each query without rules across its fields runs as plain steps; those with them, valibot', () => {
  const piped = SCHEMAS.filter(([, schema]) => 'pipe' in schema).map(([name]) => name);
  expect(piped.sort()).toEqual(['exportQuery', 'invoiceListQuery', 'refundListQuery']);
  for (const [name, schema] of SCHEMAS)
    expect([name, compiledOf(schema) !== undefined]).toEqual([name, !piped.includes(name)]);
  expect(compiledOf(inputs.checkoutBody)?.(VALID.checkoutBody)).toEqual(
    v.parse(inputs.checkoutBody, VALID.checkoutBody),
  );
});

describe('a schema with a part read otherwise than as a field of plain steps is left to valibot', () => {
  const text = v.pipe(
    v.string(),
    v.check((value) => value !== 'bad', 'is bad'),
  );

  test('a pipe around an optional field', () => {
    const schema = fields({
      a: v.pipe(
        v.optional(text),
        v.check((value) => value !== 'worse', 'is worse'),
      ),
    });
    expect(compiledOf(schema)).toBeUndefined();
    expect(() => readFields(schema, { a: 'worse' })).toThrow(InvalidRequestError);
  });

  test('a default made by a function', () => {
    expect(compiledOf(fields({ a: v.optional(text, () => 'made') }))).toBeUndefined();
  });

  test('an action this does not know', () => {
    expect(compiledOf(fields({ a: v.pipe(v.string(), v.minLength(2)) }))).toBeUndefined();
  });
});

test("defaults go through the field's steps, nested pipes run in order, and absent optional fields stay absent", () => {
  const upper = v.pipe(
    v.string(),
    v.transform((value) => value.toUpperCase()),
  );
  const schema = fields({
    a: v.optional(upper, 'd'),
    b: v.pipe(
      upper,
      v.check((value) => value.startsWith('X'), 'must start with x'),
    ),
    c: v.optional(v.string()),
  });
  const compiled = compiledOf(schema);
  expect(compiled?.({ b: 'xy' })).toStrictEqual(v.parse(schema, { b: 'xy' }));
  expect(compiled?.({ b: 'xy' })).toStrictEqual({ a: 'D', b: 'XY' });
  expect(compiled?.({ b: 'yx' })).toBeUndefined();
});
