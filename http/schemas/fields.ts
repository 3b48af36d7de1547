// The kinds of input field, as valibot schemas: each validates a field with the rules and messages of the API and
// states the same rules to the OpenAPI document. A rule valibot checks in code (`check`) states itself there
// through `metadata`, whose keys become JSON Schema keywords.
import { isLosslessNumber } from 'lossless-json';
import * as v from 'valibot';
import type { Receiver, Sender } from '../../domain/model';
import { alpha3Of } from '../../domain/countries';
import { ProcessingValidationError } from '../../processing/errors';
import { toAmount8 } from '../../processing/money';
import { FOREIGN_ID, FOREIGN_ID_MESSAGE, isPlainObject } from '../validate';

const CURRENCY = /^[A-Z0-9]{2,10}$/;
const CURRENCY_MESSAGE = 'must be an upper-case currency code such as "BTC"';
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
/** Control characters hide or rewrite what a person reads, here and in logs; a lone surrogate is not text at all. */
const CONTROL = /[\p{Cc}\p{Cs}]/u;
const CONTROL_BUT_LINE_BREAKS = /[^\P{Cc}\t\n\r]|\p{Cs}/u;
const NO_CONTROL = 'No control characters.';

type StringItem = v.PipeItem<string, string, v.BaseIssue<unknown>>;

interface TextRule {
  /** For the document: what the field is, and any rule its JSON Schema cannot state. */
  description: string;
  /** Not empty nor only spaces: a field the route requires. */
  notBlank?: boolean;
  /** Tabs and line breaks are allowed (in prose such as a description); other control characters never are. */
  lineBreaks?: boolean;
  /** In characters (code points), as JSON Schema counts them. */
  min?: number;
  max?: number;
  pattern?: RegExp;
  patternMessage?: string;
}

/** A string field; the order of the rules decides which message names a value that breaks several. */
export function text({ description, notBlank, lineBreaks, min, max, pattern, patternMessage }: TextRule) {
  const control = lineBreaks ? CONTROL_BUT_LINE_BREAKS : CONTROL;
  const rules: StringItem[] = [
    v.description(
      `${description} ${lineBreaks ? 'No control characters but tabs and line breaks.' : NO_CONTROL}`,
    ),
  ];
  if (notBlank) rules.push(v.check((value) => value.trim() !== '', 'must not be empty'));
  if (min !== undefined) {
    rules.push(v.check((value) => codePoints(value, min) >= min, `must be at least ${min} characters`));
    rules.push(v.metadata({ minLength: min }));
  }
  if (max !== undefined) {
    rules.push(v.check((value) => codePoints(value, max + 1) <= max, `must be at most ${max} characters`));
    rules.push(v.metadata({ maxLength: max }));
  }
  rules.push(
    v.check((value) => !control.test(value), 'must not contain control characters or lone surrogates'),
  );
  if (pattern) rules.push(v.regex(pattern, patternMessage ?? 'has the wrong format'));
  return v.pipe(v.string('must be a string'), ...rules);
}

/**
 * The string's length in code points, as JSON Schema counts it, counted no further than `upTo`: a 2 KB URL is
 * checked on every checkout, and this allocates nothing.
 */
function codePoints(value: string, upTo: number): number {
  let count = 0;
  for (let i = 0; i < value.length && count < upTo; i++, count++) {
    const unit = value.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
  }
  return count;
}

/** `notBlank` is for a required field: an optional one that is blank gets the pattern's message. */
type Options = Pick<TextRule, 'notBlank'>;

export const foreignId = (description: string, { notBlank = true }: Options = {}) =>
  text({ description, notBlank, pattern: FOREIGN_ID, patternMessage: FOREIGN_ID_MESSAGE });

export const currency = (description: string, { notBlank = true }: Options = {}) =>
  text({ description, notBlank, pattern: CURRENCY, patternMessage: CURRENCY_MESSAGE });

export const email = (description: string) =>
  text({
    description,
    notBlank: true,
    max: 254,
    pattern: EMAIL,
    patternMessage: 'must be an e-mail address',
  });

export const url = (description: string) =>
  v.pipe(
    text({ description, notBlank: true, max: 2048 }),
    v.check(isHttpUrl, 'must be an absolute http(s) URL'),
    v.metadata({ format: 'uri' }),
  );

function isHttpUrl(value: string): boolean {
  try {
    const { protocol } = new URL(value);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** One of a few strings. */
export const oneOf = <const T extends readonly [string, ...string[]]>(description: string, allowed: T) =>
  v.pipe(
    text({ description }),
    v.check((value) => allowed.includes(value), `must be one of ${allowed.join(', ')}`),
    v.metadata({ enum: allowed }),
    v.transform((value) => value as T[number]),
  );

/** `true` or `false`, as JSON or in a query string. */
export const flag = (description: string) =>
  v.pipe(
    v.unknown(),
    v.check(
      (value) => value === true || value === false || value === 'true' || value === 'false',
      'must be true or false',
    ),
    v.metadata({ type: 'boolean' }),
    v.description(description),
    v.transform((value) => value === true || value === 'true'),
  );

/** The text of an exact JSON number, as lossless-json read it; anything else as it is. */
const digitsOf = (value: unknown) => (isLosslessNumber(value) ? value.toString() : value);

const isWholeNumber = (value: unknown) => {
  const digits = digitsOf(value);
  return typeof digits === 'string' && /^\d{1,15}$/.test(digits);
};

/** A positive decimal, as a string or an exact JSON number, normalised to 8 fractional digits. */
export const amount = (description: string) =>
  v.pipe(
    v.unknown(),
    v.metadata({
      oneOf: [
        { type: 'string', pattern: '^\\d+(\\.\\d+)?$', maxLength: 64 },
        { type: 'number', exclusiveMinimum: 0 },
      ],
      examples: ['25.50', 25.5],
    }),
    v.description(
      `${description} A decimal string, greater than zero, with at most 30 integer and 8 fractional digits; or an exact JSON number, read as written (never through a float).`,
    ),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      try {
        return toAmount8(digitsOf(dataset.value), 'amount');
      } catch (error) {
        if (!(error instanceof ProcessingValidationError)) throw error;
        addIssue({ message: error.fields.amount });
        return NEVER;
      }
    }),
  );

interface WholeNumberRule {
  description: string;
  minimum: number;
  maximum?: number;
  rangeMessage: string;
  /** For the document; the route applies it. */
  default?: number;
  /** A body field: only a JSON number, since a string there is not the integer the document states. */
  jsonOnly?: boolean;
}

/** A whole number, as an exact JSON number or, unless `jsonOnly`, a query string. */
export const wholeNumber = ({
  description,
  minimum,
  maximum,
  rangeMessage,
  jsonOnly,
  ...facts
}: WholeNumberRule) =>
  v.pipe(
    v.unknown(),
    jsonOnly
      ? v.check((value) => isLosslessNumber(value) && isWholeNumber(value), 'must be a JSON integer')
      : v.check(isWholeNumber, 'must be a whole number'),
    v.metadata({ type: 'integer', minimum, ...(maximum === undefined ? {} : { maximum }), ...facts }),
    v.description(description),
    v.transform((value) => Number(digitsOf(value))),
    v.check((value) => value >= minimum && value <= (maximum ?? Infinity), rangeMessage),
  );

const METADATA_KEYS = 20;
const METADATA_KEY = /^[A-Za-z0-9_.:-]{1,40}$/;
const metadataValue = text({ description: 'A value of the store.', max: 500, lineBreaks: true });

/**
 * The store's own key-value pairs: at most 20 keys of 1 to 40 letters, digits, `_`, `-`, `.` or `:`, each holding
 * a string of at most 500 characters. A value at fault is named as `metadata.<key>`; the keys come back sorted, so
 * that the same pairs in another order are the same request.
 */
export const metadata = (description: string) =>
  v.pipe(
    v.unknown(),
    v.metadata({
      type: 'object',
      maxProperties: METADATA_KEYS,
      propertyNames: { pattern: METADATA_KEY.source },
      additionalProperties: { type: 'string', maxLength: 500 },
    }),
    v.description(
      `${description} At most ${METADATA_KEYS} keys of 1 to 40 letters, digits, "_", "-", "." or ":", each a string of at most 500 characters (no control characters but tabs and line breaks). Returned as given, the keys sorted.`,
    ),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const value = dataset.value;
      const refuse = (message: string) => (addIssue({ message }), NEVER);
      if (!isPlainObject(value)) return refuse('must be a JSON object of strings');
      const entries = Object.entries(value);
      if (entries.length > METADATA_KEYS) return refuse(`must have at most ${METADATA_KEYS} keys`);
      // A key at fault is not echoed back: it may hold anything.
      if (entries.some(([key]) => !METADATA_KEY.test(key)))
        return refuse('keys must be 1 to 40 letters, digits, "_", "-", "." or ":"');
      let failed = false;
      for (const [key, text] of entries) {
        const problem = v.safeParse(metadataValue, text).issues?.[0].message;
        if (problem === undefined) continue;
        failed = true;
        addIssue({
          message: problem,
          path: [{ type: 'object', origin: 'value', input: value, key, value: text }],
        });
      }
      if (failed) return NEVER;
      return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : 1))) as Record<string, string>;
    }),
  );

/** ISO 8601 in UTC, to the second or the millisecond: the time format of the API's answers, and of every time it takes. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;
const ISO_UTC_MESSAGE = 'must be an ISO 8601 UTC time, such as 2026-11-23T07:52:25.679Z';

/** Date.parse rolls 2026-02-30 over into March; a real date reads back as written. */
function isRealTime(value: string): boolean {
  const ms = Date.parse(value);
  return !Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value.slice(0, 19));
}

/** Every time a query takes, in ms. */
export const utcTime = (description: string) =>
  v.pipe(
    text({
      description: `${description} ISO 8601 in UTC.`,
      pattern: ISO_UTC,
      patternMessage: ISO_UTC_MESSAGE,
    }),
    v.check(isRealTime, ISO_UTC_MESSAGE),
    v.metadata({ format: 'date-time' }),
    v.transform(Date.parse),
  );

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_MESSAGE = 'must be a real date, as YYYY-MM-DD';
const EARLIEST_BIRTH = '1900-01-01';
const RECEIVER_KEY = /^[a-z_]{1,40}$/;

/** A past date as YYYY-MM-DD (2026-02-30 is no date), not before 1900; "past" is judged by today's UTC date. */
const dateOfBirth = v.pipe(
  text({
    description: `The date of birth, YYYY-MM-DD: a real date in the past, not before ${EARLIEST_BIRTH}.`,
    notBlank: true,
    pattern: DATE,
    patternMessage: DATE_MESSAGE,
  }),
  v.check(
    (value) => new Date(Date.parse(`${value}T00:00:00Z`) || 0).toISOString().startsWith(value),
    DATE_MESSAGE,
  ),
  v.check((value) => value >= EARLIEST_BIRTH, `must not be before ${EARLIEST_BIRTH}`),
  v.check((value) => value < new Date().toISOString().slice(0, 10), 'must be a date in the past'),
);

const countryCode = v.pipe(
  text({
    description: 'The country of registration: an ISO 3166-1 alpha-2 code in capitals, such as "DE".',
    notBlank: true,
    pattern: /^[A-Z]{2}$/,
    patternMessage: 'must be an ISO 3166-1 alpha-2 code in capitals, such as "DE"',
  }),
  v.check((value) => alpha3Of(value) !== undefined, 'must be an assigned ISO 3166-1 alpha-2 code'),
);

/** Bidi embeddings, overrides and isolates: they reorder what a person reads, so a name shows other than it is. */
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/u;

const receiverName = (description: string, max: number) =>
  v.pipe(
    text({
      description: `${description} No bidi embedding, override or isolate characters.`,
      notBlank: true,
      max,
    }),
    v.check((value) => !BIDI_CONTROL.test(value), 'must not contain bidi control characters'),
  );
const receiverEmail = email('An e-mail address of the receiver; optional.');

/** Each kind of receiver's fields, as the API names them; `optional` ones may be left out. */
const RECEIVER_KINDS = {
  natural: {
    first_name: { schema: receiverName('The first name.', 100) },
    last_name: { schema: receiverName('The last name.', 100) },
    date_of_birth: { schema: dateOfBirth },
    email: { schema: receiverEmail, optional: true },
  },
  legal: {
    company_name: { schema: receiverName("The company's registered name.", 200) },
    country: { schema: countryCode },
    email: { schema: receiverEmail, optional: true },
  },
  self: {},
} as const satisfies Record<
  Receiver['type'],
  Record<string, { schema: v.GenericSchema<unknown, string>; optional?: boolean }>
>;

const stringSchema = (more: object) => ({ type: 'string', ...more });

/** The JSON Schema of one kind of receiver, for the document. */
const receiverKindSchema = (
  type: Receiver['type'],
  properties: Record<string, object>,
  required: string[],
) => ({
  type: 'object',
  properties: { type: { const: type }, ...properties },
  required: ['type', ...required],
  additionalProperties: false,
});

type PartyType = Receiver['type'];

const naturalSchema = receiverKindSchema(
  'natural',
  {
    first_name: stringSchema({ minLength: 1, maxLength: 100 }),
    last_name: stringSchema({ minLength: 1, maxLength: 100 }),
    date_of_birth: stringSchema({ format: 'date' }),
    email: stringSchema({ maxLength: 254 }),
  },
  ['first_name', 'last_name', 'date_of_birth'],
);
const legalSchema = receiverKindSchema(
  'legal',
  {
    company_name: stringSchema({ minLength: 1, maxLength: 200 }),
    country: stringSchema({ pattern: '^[A-Z]{2}$' }),
    email: stringSchema({ maxLength: 254 }),
  },
  ['company_name', 'country'],
);
const PERSON_AND_COMPANY = `A natural person: \`first_name\` and \`last_name\` (1 to 100 characters), \`date_of_birth\` (YYYY-MM-DD, a real date in the past, not before ${EARLIEST_BIRTH}), optional \`email\`. A company: \`company_name\` (1 to 200 characters), \`country\` of registration (ISO 3166-1 alpha-2, such as "DE"), optional \`email\`.`;

/**
 * A travel-rule party of one of `types`, named `role` in its messages: each field at fault is named as
 * `<field>.<key>` by the caller's path; a value is never echoed back.
 */
const party = <T extends PartyType>(
  role: string,
  types: readonly T[],
  kinds: object[],
  description: string,
) =>
  v.pipe(
    v.unknown(),
    v.metadata({ oneOf: kinds }),
    v.description(description),
    v.rawTransform<unknown, Extract<Receiver, { type: T }>>(({ dataset, addIssue, NEVER }) => {
      const value = dataset.value;
      if (!isPlainObject(value)) {
        addIssue({
          message: `must be a JSON object whose type is ${types.slice(0, -1).join(', ')} or ${types.at(-1)}`,
        });
        return NEVER;
      }
      const at = (key: string): [v.ObjectPathItem] => [
        { type: 'object', origin: 'value', input: value, key, value: value[key] },
      ];
      const type = value.type;
      if (type === undefined || type === null) {
        addIssue({ message: 'is required', path: at('type') });
        return NEVER;
      }
      if (typeof type !== 'string' || !(types as readonly string[]).includes(type)) {
        addIssue({ message: `must be one of ${types.join(', ')}`, path: at('type') });
        return NEVER;
      }
      const kind: Record<string, { schema: v.GenericSchema<unknown, string>; optional?: boolean }> =
        RECEIVER_KINDS[type as PartyType];
      let failed = false;
      const refuse = (message: string, key?: string) => {
        failed = true;
        addIssue({ message, ...(key !== undefined && { path: at(key) }) });
      };
      const fields: Record<string, string> = {};
      for (const key of Object.keys(value)) {
        if (key === 'type' || Object.hasOwn(kind, key)) continue;
        // A key that is no field name is not echoed back: it may hold anything.
        if (RECEIVER_KEY.test(key)) refuse(`is not a field of a ${type} ${role}`, key);
        else refuse(`has a field that is not one of a ${type} ${role}`);
      }
      for (const [key, { schema, optional }] of Object.entries(kind)) {
        const given = value[key];
        if (given === undefined || given === null) {
          if (!optional) refuse('is required', key);
          continue;
        }
        const parsed = v.safeParse(schema, given);
        if (parsed.success) fields[key] = parsed.output;
        else refuse(parsed.issues[0].message, key);
      }
      if (failed) return NEVER;
      return receiverOf(type as PartyType, fields) as Extract<Receiver, { type: T }>;
    }),
  );

/**
 * The travel rule's receiver of a refund: `{"type": "natural", "first_name", "last_name", "date_of_birth",
 * "email"?}`, `{"type": "legal", "company_name", "country", "email"?}` or `{"type": "self"}`. Each field at fault
 * is named as `receiver.<field>`; a value is never echoed back.
 */
export const receiver = (description: string) =>
  party(
    'receiver',
    ['natural', 'legal', 'self'],
    [naturalSchema, legalSchema, receiverKindSchema('self', {}, [])],
    `${description} ${PERSON_AND_COMPANY} \`self\`: the store's own wallet, no other field. No control characters.`,
  );

/**
 * The customer who receives a claimed refund: a natural person or a company. `self` is the service's word for an
 * internal transfer within a company, never a customer's.
 */
export const claimReceiver = (description: string): v.GenericSchema<unknown, Sender> =>
  party(
    'receiver',
    ['natural', 'legal'],
    [naturalSchema, legalSchema],
    `${description} ${PERSON_AND_COMPANY} No control characters.`,
  );

/** The travel rule's payer on a checkout: a natural person or a company, in the receiver's fields (no `self`). */
export const sender = (description: string): v.GenericSchema<unknown, Sender> =>
  party(
    'sender',
    ['natural', 'legal'],
    [naturalSchema, legalSchema],
    `${description} ${PERSON_AND_COMPANY} No control characters.`,
  );

function receiverOf(type: Receiver['type'], fields: Record<string, string>): Receiver {
  const email = fields.email === undefined ? {} : { email: fields.email };
  switch (type) {
    case 'natural':
      return {
        type,
        firstName: fields.first_name,
        lastName: fields.last_name,
        dateOfBirth: fields.date_of_birth,
        ...email,
      };
    case 'legal':
      return { type, companyName: fields.company_name, country: fields.country, ...email };
    case 'self':
      return { type };
  }
}
