// fast-check generators of requests the plugin must refuse with 400 (or 415) before it writes or sends anything.
import fc from 'fast-check';
import { LosslessNumber, stringify } from 'lossless-json';

/** A field removed from the body, rather than set to a value. */
const MISSING = Symbol('missing');

export interface FieldRule {
  name: string;
  required: boolean;
  /** Values the route must refuse for this field. */
  invalid: fc.Arbitrary<unknown>;
}

export interface BadRequest {
  /** Shown when a case fails. */
  label: string;
  /** The body as sent; undefined sends none. */
  body?: string;
  /** undefined sends no content-type header. */
  contentType?: string;
  status: 400 | 415;
  code: string;
  /** Fields the error must name; `exact` when nothing else is wrong with the body. */
  fields?: { named: string[]; exact: boolean };
}

const number = (token: string) => new LosslessNumber(token);
const chars = (alphabet: string, minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...alphabet), minLength, maxLength });
const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const DIGITS = '0123456789';

/** `.` and `..` alone are path segments a URL resolves away. */
export const DOT_SEGMENTS = ['.', '..'];
export const validForeignId = chars(`${ALNUM}._:-`, 1, 64).filter((id) => !DOT_SEGMENTS.includes(id));

const notAString = fc.constantFrom<unknown>(
  true,
  false,
  number('42'),
  number('-1.5'),
  [],
  ['x'],
  {},
  { value: 'x' },
);
const notAnAmount = fc.constantFrom<unknown>(true, false, [], ['25.50'], {}, { amount: '25.50' });
const tooLong = (max: number) => fc.string({ minLength: max + 1, maxLength: max + 60 });

/** C0 and C1 controls and lone surrogates; a description may hold tabs and line breaks, no other text may. */
const LINE_BREAKS = ['\t', '\n', '\r'];
const CONTROLS = [
  ...LINE_BREAKS,
  '\u0000',
  '\u0007',
  '\b',
  '\v',
  '\f',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u009f',
  '\ud800',
  '\udfff',
];
/** `text` with one of `inserted` somewhere inside it. */
const containing = (inserted: string[], text: fc.Arbitrary<string>) =>
  fc.tuple(text, fc.constantFrom(...inserted), fc.nat()).map(([around, bad, at]) => {
    const cut = at % (around.length + 1);
    return `${around.slice(0, cut)}${bad}${around.slice(cut)}`;
  });
const withControl = (maxLength: number, controls = CONTROLS) =>
  containing(controls, fc.string({ maxLength: Math.min(maxLength - 1, 20) }));
const notLineBreak = CONTROLS.filter((control) => !LINE_BREAKS.includes(control));

/** Letters, digits and `._:-` are fine; anything else, `~` (the attempt separator) included, is not. */
export const invalidForeignId = fc.oneof(
  fc
    .tuple(
      chars(`${ALNUM}._:-`, 0, 20),
      fc.constantFrom(
        '~',
        '/',
        ' ',
        '\t',
        '#',
        '?',
        '%',
        '&',
        '+',
        '@',
        '\\',
        '"',
        "'",
        '<',
        'é',
        '€',
        '😀',
        '\u0000',
      ),
      chars(`${ALNUM}._:-`, 0, 20),
    )
    .map(([before, bad, after]) => `${before}${bad}${after}`),
  chars(ALNUM, 65, 120),
  fc.constant(''),
  fc.constantFrom(...DOT_SEGMENTS),
);

const positiveDecimal = fc
  .tuple(fc.integer({ min: 0, max: 99_999 }), chars(DIGITS, 0, 8))
  .map(([whole, fraction]) => (fraction ? `${whole}.${fraction}` : String(whole)));

/** Amount texts that are not a positive decimal with at most 8 fractional digits. */
const invalidAmountText = fc.oneof(
  fc
    .tuple(fc.integer({ min: 0, max: 99_999 }), chars(DIGITS, 8, 14), fc.constantFrom(...'123456789'))
    .map(([whole, fraction, last]) => `${whole}.${fraction}${last}`),
  fc.constantFrom('0', '0.0', '00', '0.00000000', '000.000', '0.000000000'),
  positiveDecimal.map((amount) => `-${amount}`),
  fc
    .tuple(
      fc.integer({ min: 1, max: 999 }),
      fc.constantFrom('e', 'E'),
      fc.constantFrom('', '+', '-'),
      fc.nat(20),
    )
    .map(([mantissa, e, sign, exponent]) => `${mantissa}${e}${sign}${exponent}`),
  fc.constantFrom('NaN', 'Infinity', '-Infinity', '', ' ', '1,5', '1 000', '0x1A', '+1', '.5', '5.', '1.2.3'),
  fc.constantFrom('١٢', '12abc', ' 12', '12 ', '€12', '1_000', '25.50 EUR'),
  // Too large: more than 30 integer digits, more than 64 characters, or an exponent that must not be written out.
  fc.tuple(fc.constantFrom(...'123456789'), chars(DIGITS, 30, 40)).map(([first, rest]) => `${first}${rest}`),
  fc.constantFrom(`${'0'.repeat(64)}1`, '9'.repeat(250_000), '1e500000', '1e9000000000000000', '1e-500000'),
);
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** As a string, as an exact JSON number token (`1e3`, `-5`, `0.123456789`), or not a scalar at all. */
const invalidAmount = fc.oneof(
  invalidAmountText,
  invalidAmountText.filter((text) => JSON_NUMBER.test(text)).map(number),
  notAnAmount,
);

const invalidCurrency = fc.oneof(
  fc.constantFrom('', 'eur', 'Eur', 'E', 'EUR ', ' EUR', 'EU R', 'EUR-', 'E.U', '€', 'BTC\n', 'ÉUR'),
  chars('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 11, 20),
  chars('abcdefghij', 2, 10),
  notAString,
);

const invalidEmail = fc.oneof(
  fc.constantFrom('', 'plain', 'a@b', 'a b@c.de', '@c.de', 'a@', 'a@@b.cd', 'a@b c.de', 'a@b.', ' a@b.cd'),
  chars('abcdefghij', 250, 300).map((local) => `${local}@example.com`),
  containing(notLineBreak, fc.constant('customer')).map((local) => `${local}@example.com`),
  notAString,
);

const invalidUrl = fc.oneof(
  fc.constantFrom(
    '',
    'ftp://shop.example/ok',
    'javascript:alert(1)',
    'mailto:a@b.cd',
    '/ok',
    'shop.example/ok',
  ),
  fc.constantFrom('not a url', 'file:///etc/passwd', 'data:text/plain,hi', 'https://', 'ws://shop.example'),
  fc.constant(`https://shop.example/${'a'.repeat(2048)}`),
  containing(CONTROLS, fc.constant('https://shop.example/ok')),
  notAString,
);

const invalidTimer = fc.constantFrom<unknown>(
  'yes',
  'no',
  '',
  'TRUE',
  'True',
  '1',
  '0',
  number('1'),
  number('0'),
  [],
  {},
  [true],
);
const invalidType = fc.constantFrom<unknown>(
  '',
  'fill',
  'FILL_OR_KILL',
  'partial',
  'good_until_expired ',
  number('1'),
  [],
  {},
);
const invalidAddress = fc.oneof(
  fc.constantFrom('', '   ', 'bc1q with space', 'bc1q\tx', '\n'),
  chars(ALNUM, 257, 300),
  // Controls, bidi controls, zero-width and other invisible characters, and look-alikes of ASCII letters.
  containing(
    [
      ...CONTROLS,
      '\u202e',
      '\u2066',
      '\u200f',
      '\u200b',
      '\u200d',
      '\u2060',
      '\ufeff',
      '\u00a0',
      '\u0430',
      'é',
    ],
    chars(ALNUM, 0, 40),
  ),
  notAString,
);

const invalidReference = fc.oneof(tooLong(100), withControl(100), notAString);

export const checkoutRules: FieldRule[] = [
  { name: 'foreign_id', required: true, invalid: fc.oneof(invalidForeignId, notAString) },
  { name: 'amount', required: true, invalid: invalidAmount },
  { name: 'currency', required: true, invalid: invalidCurrency },
  {
    name: 'title',
    required: true,
    invalid: fc.oneof(fc.constant(''), tooLong(50), withControl(50), notAString),
  },
  { name: 'email', required: true, invalid: invalidEmail },
  { name: 'url_success', required: true, invalid: invalidUrl },
  { name: 'url_failed', required: true, invalid: invalidUrl },
  { name: 'timer', required: false, invalid: invalidTimer },
  { name: 'sender_currency', required: false, invalid: invalidCurrency },
  {
    name: 'description',
    required: false,
    invalid: fc.oneof(tooLong(1000), withControl(1000, notLineBreak), notAString),
  },
  { name: 'end_user_reference', required: false, invalid: invalidReference },
  { name: 'type', required: false, invalid: invalidType },
];

export const refundRules: FieldRule[] = [
  { name: 'foreign_id', required: true, invalid: fc.oneof(invalidForeignId, notAString) },
  { name: 'debited_currency', required: true, invalid: invalidCurrency },
  { name: 'currency', required: true, invalid: invalidCurrency },
  { name: 'debited_amount', required: true, invalid: invalidAmount },
  { name: 'address', required: true, invalid: invalidAddress },
  { name: 'end_user_reference', required: false, invalid: invalidReference },
];

/** A valid body of the route; foreign ids vary so that no case could collide with another. */
export type ValidBody = fc.Arbitrary<Record<string, unknown>>;

/** Any request the route must refuse, mostly field-level breaks of a valid body. */
export function badRequest(valid: ValidBody, rules: FieldRule[]): fc.Arbitrary<BadRequest> {
  return fc.oneof(
    { weight: 12, arbitrary: brokenFields(valid, rules) },
    { weight: 1, arbitrary: notAnObject() },
    { weight: 1, arbitrary: malformedJson(valid) },
    { weight: 1, arbitrary: duplicateKeys(valid) },
    { weight: 1, arbitrary: tooDeep(valid) },
    { weight: 1, arbitrary: wrongContentType(valid) },
  );
}

interface Break {
  field: string;
  value: unknown;
}

function breakOf(rule: FieldRule): fc.Arbitrary<Break> {
  const value = rule.required
    ? fc.oneof(
        { weight: 5, arbitrary: rule.invalid },
        { weight: 1, arbitrary: fc.constantFrom(MISSING, null) },
      )
    : rule.invalid;
  return value.map((broken) => ({ field: rule.name, value: broken }));
}

function unknownField(known: Set<string>): fc.Arbitrary<Break> {
  const name = fc
    .oneof(
      fc.constantFrom(
        'email_user',
        'amount_cents',
        'status',
        'version',
        'id',
        'callback_url',
        'Foreign_ID',
        'amount ',
      ),
      // Names that `in` finds on any object: a validator must not mistake them for known or reported fields.
      fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', ''),
      fc.string({ maxLength: 20 }),
    )
    .filter((candidate) => !known.has(candidate));
  return fc.record({ field: name, value: fc.jsonValue({ maxDepth: 2 }) });
}

/** One or more fields broken (wrong, missing or null), and/or unknown fields added; the rest stays valid. */
function brokenFields(valid: ValidBody, rules: FieldRule[]): fc.Arbitrary<BadRequest> {
  const known = new Set(rules.map((rule) => rule.name));
  const broken = fc
    .subarray(rules, { minLength: 1, maxLength: 4 })
    .chain((chosen) => fc.tuple(...chosen.map(breakOf)) as fc.Arbitrary<Break[]>);
  const extra = fc.uniqueArray(unknownField(known), { minLength: 1, maxLength: 2, selector: (b) => b.field });
  const breaks = fc.oneof(
    { weight: 4, arbitrary: broken },
    { weight: 1, arbitrary: fc.tuple(broken, extra).map(([a, b]) => [...a, ...b]) },
    { weight: 1, arbitrary: extra },
  );
  return fc.tuple(valid, breaks).map(([body, changes]) => {
    const changed = new Map(changes.map((change) => [change.field, change.value]));
    // fromEntries makes `__proto__` an own key, as JSON.parse would.
    const entries = [...Object.entries(body).filter(([name]) => !changed.has(name)), ...changed.entries()];
    const sent = Object.fromEntries(entries.filter(([, value]) => value !== MISSING));
    const named = [...changed.keys()].sort();
    return {
      label: `broken ${named.join(', ')}`,
      body: stringify(sent),
      contentType: 'application/json',
      status: 400,
      code: 'invalid_request',
      fields: { named, exact: true },
    } satisfies BadRequest;
  });
}

function notAnObject(): fc.Arbitrary<BadRequest> {
  const value = fc.oneof(
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const sent = fc.oneof(
    value.map((v) => JSON.stringify(v)),
    fc.constant(undefined),
  );
  return sent.map((body) => ({
    label: body === undefined ? 'no body' : `non-object body ${body}`,
    body,
    contentType: 'application/json',
    status: 400,
    code: 'invalid_request',
    fields: { named: ['body'], exact: false },
  }));
}

const GARBAGE = ['{', '}', '[', ']', ',', ':', '"', "'", 'NaN', 'undefined', '\\', '01', '.5', '-', 'tru'];

function malformedJson(valid: ValidBody): fc.Arbitrary<BadRequest> {
  const mangled = fc.oneof(
    fc.tuple(valid, fc.double({ min: 0, max: 1, noNaN: true })).map(([body, at]) => {
      const text = JSON.stringify(body);
      return text.slice(0, 1 + Math.floor(at * (text.length - 1)));
    }),
    fc
      .tuple(valid, fc.double({ min: 0, max: 1, noNaN: true }), fc.constantFrom(...GARBAGE))
      .map(([body, at, garbage]) => {
        const text = JSON.stringify(body);
        const cut = Math.floor(at * text.length);
        return `${text.slice(0, cut)}${garbage}${text.slice(cut)}`;
      }),
    fc.constantFrom(
      "{'foreign_id': 'x'}",
      '{foreign_id: "x"}',
      '{"amount": 1,}',
      '{"amount": 1e}',
      '{"amount": .5}',
      '{"amount": 01}',
      '{"amount": NaN}',
      '{"a":1} {"b":2}',
      '\uFEFF{}',
    ),
  );
  return mangled
    .filter((text) => !parsesAsJson(text))
    .map((body) => ({
      label: `malformed JSON ${JSON.stringify(body.slice(0, 60))}`,
      body,
      contentType: 'application/json',
      status: 400,
      code: 'invalid_json',
    }));
}

/** A key repeated, at the top or inside an added object, with the same value or another. */
function duplicateKeys(valid: ValidBody): fc.Arbitrary<BadRequest> {
  const repeated = fc
    .tuple(valid, fc.nat(), fc.option(fc.jsonValue({ maxDepth: 1 }), { nil: undefined }))
    .map(([body, pick, other]) => {
      const name = Object.keys(body)[pick % Object.keys(body).length];
      const value = other === undefined ? body[name] : other;
      return stringify(body)!.replace(/}$/, `,${JSON.stringify(name)}:${stringify(value)}}`);
    });
  const nested = fc
    .tuple(valid, fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), fc.jsonValue({ maxDepth: 1 }))
    .map(([body, key, first, second]) => {
      const inner = `{${JSON.stringify(key)}:${JSON.stringify(first)},${JSON.stringify(key)}:${JSON.stringify(second)}}`;
      return stringify(body)!.replace(/}$/, `,"extra":${inner}}`);
    });
  return fc.oneof(repeated, nested).map((body) => ({
    label: `duplicate keys ${body.slice(-80)}`,
    body,
    contentType: 'application/json',
    status: 400,
    code: 'invalid_json',
  }));
}

/** An added field nested more than 32 levels deep, with a number inside or not. */
function tooDeep(valid: ValidBody): fc.Arbitrary<BadRequest> {
  return fc
    .tuple(valid, fc.integer({ min: 33, max: 5000 }), fc.constantFrom('1', '"x"', 'null', '{}'))
    .map(([body, depth, leaf]) => ({
      label: `nested ${depth} levels deep around ${leaf}`,
      body: stringify(body)!.replace(
        /}$/,
        `,"extra":${'['.repeat(depth - 1)}${leaf}${']'.repeat(depth - 1)}}`,
      ),
      contentType: 'application/json',
      status: 400,
      code: 'invalid_json',
    }));
}

function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const WRONG_CONTENT_TYPES = [
  undefined,
  'text/plain',
  'text/html; charset=utf-8',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  'application/jsonp',
  'application/json-patch+json',
  'application/json-seq',
  'application/json+x',
  'application/javascript',
  'json',
  'image/png',
];

function wrongContentType(valid: ValidBody): fc.Arbitrary<BadRequest> {
  return fc.tuple(valid, fc.constantFrom(...WRONG_CONTENT_TYPES)).map(([body, contentType]) => ({
    label: `content-type ${contentType ?? '(none)'}`,
    body: stringify(body),
    contentType,
    status: 415,
    code: 'unsupported_media_type',
  }));
}
