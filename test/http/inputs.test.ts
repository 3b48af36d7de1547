// Route inputs: what each field accepts and refuses, naming the field.
import { HttpError } from '../../http/errors';
import {
  balancesInput,
  checkoutInput,
  foreignIdInput,
  healthInput,
  pairInput,
  refundInput,
  transactionInput,
} from '../../http/inputs';
import { historyInput } from '../../http/list-inputs';
import type { ApiRequest } from '../../http/route';

const CHECKOUT = {
  foreign_id: 'order-1',
  amount: '25.50',
  currency: 'EUR',
  title: 'Order 1',
  email: 'buyer@example.com',
  url_success: 'https://shop.example/ok',
  url_failed: 'https://shop.example/failed',
};
const REFUND = {
  foreign_id: 'refund-1',
  debited_currency: 'EUR',
  currency: 'BTC',
  debited_amount: '10',
  address: 'bc1qexampleaddress',
};

const request = (parts: Partial<ApiRequest>): ApiRequest => ({
  body: undefined,
  rawBody: Buffer.alloc(0),
  headers: {},
  path: {},
  query: {},
  ...parts,
});

/** The fields a refusal names, with their messages, in order; undefined when the input is accepted. */
function refusal(read: () => unknown): Record<string, string> | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return (error as HttpError).fields ?? {};
  }
}

/** The fields a refusal names, or undefined when the input is accepted. */
function refused(read: () => unknown): string[] | undefined {
  const fields = refusal(read);
  return fields && Object.keys(fields);
}

const checkout = (fields: Record<string, unknown>) => () =>
  checkoutInput(request({ body: { ...CHECKOUT, ...fields } }));
const refund = (fields: Record<string, unknown>) => () =>
  refundInput(request({ body: { ...REFUND, ...fields } }));

describe('foreign_id', () => {
  // A URL resolves these as path segments: /invoices/../cancel is /cancel, so the order could never be reached.
  it.each(['.', '..'])('%s is refused in bodies, paths and queries', (id) => {
    expect(refused(checkout({ foreign_id: id }))).toEqual(['foreign_id']);
    expect(refused(refund({ foreign_id: id }))).toEqual(['foreign_id']);
    expect(refused(() => foreignIdInput(request({ path: { foreign_id: id } })))).toEqual(['foreign_id']);
    expect(refused(() => transactionInput(request({ query: { foreign_id: id } })))).toEqual(['foreign_id']);
  });

  it.each(['...', '.a', 'a.', 'a..b', '.:.', '-', 'x'.repeat(64)])('%s is accepted', (id) => {
    expect(refused(checkout({ foreign_id: id }))).toBeUndefined();
    expect(foreignIdInput(request({ path: { foreign_id: id } }))).toBe(id);
  });
});

describe('transaction lookup id', () => {
  it('0 is refused here, naming id, rather than sent to the service', () => {
    expect(refused(() => transactionInput(request({ query: { id: '0' } })))).toEqual(['id']);
    expect(refused(() => transactionInput(request({ query: { id: '000' } })))).toEqual(['id']);
  });

  it('1 is accepted', () => {
    expect(transactionInput(request({ query: { id: '1' } }))).toEqual({ id: 1 });
  });
});

describe('health', () => {
  it('takes no parameters: none is accepted, any given is refused by name', () => {
    expect(refused(() => healthInput(request({})))).toBeUndefined();
    expect(refused(() => healthInput(request({ query: { verbose: '1', live: 'true' } })))).toEqual([
      'verbose',
      'live',
    ]);
  });
});

describe('amounts', () => {
  it.each([
    ['31 integer digits', `1${'0'.repeat(30)}`],
    ['250,000 digits', '9'.repeat(250_000)],
    ['65 characters, though small in value', `${'0'.repeat(60)}1.000`],
  ])('%s are refused, naming the field', (_name, amount) => {
    expect(refused(checkout({ amount }))).toEqual(['amount']);
    expect(refused(refund({ debited_amount: amount }))).toEqual(['debited_amount']);
  });

  it('30 integer digits and 8 fractional ones are accepted', () => {
    const amount = `${'9'.repeat(30)}.${'9'.repeat(8)}`;
    expect(checkoutInput(request({ body: { ...CHECKOUT, amount } })).amount).toBe(amount);
  });
});

describe('free text', () => {
  it.each([
    '\u0000',
    '\u0007',
    '\b',
    '\t',
    '\n',
    '\r',
    '\u001b[31m',
    '\u007f',
    '\u0085',
    '\ud800',
    'a\udc00b',
  ])('a control character or a lone surrogate (%j) is refused in every text field', (bad) => {
    for (const field of ['title', 'end_user_reference', 'email', 'url_success', 'url_failed']) {
      const value =
        field === 'email'
          ? `a${bad}b@example.com`
          : field.startsWith('url')
            ? `https://shop.example/${bad}`
            : `x${bad}y`;
      expect([field, refused(checkout({ [field]: value }))]).toEqual([field, [field]]);
    }
    expect(refused(refund({ end_user_reference: `x${bad}y` }))).toEqual(['end_user_reference']);
    expect(refused(refund({ address: `bc1q${bad}x` }))).toEqual(['address']);
  });

  it('a description may break lines and hold tabs, but no other control character', () => {
    expect(refused(checkout({ description: 'Two items:\n\t- a\r\n\t- b' }))).toBeUndefined();
    expect(refused(checkout({ description: 'a\u0000b' }))).toEqual(['description']);
    expect(refused(checkout({ description: 'a\u001bb' }))).toEqual(['description']);
  });

  it('letters of any script, emoji and joiners stay allowed in prose', () => {
    const title = 'Café ☕ 注文 👨‍👩‍👧 שלום';
    expect(checkoutInput(request({ body: { ...CHECKOUT, title } })).title).toBe(title);
  });

  it('lengths count code points: an emoji is one character, at the limits as JSON Schema counts them', () => {
    const title = (text: string) =>
      refusal(() => checkoutInput(request({ body: { ...CHECKOUT, title: text } })));
    expect(title('😀'.repeat(50))).toBeUndefined();
    expect(title('😀'.repeat(51))).toEqual({ title: 'must be at most 50 characters' });
    expect(title(`${'😀'.repeat(49)}ab`)).toEqual({ title: 'must be at most 50 characters' });
    const reference = (text: string) =>
      refusal(() => checkoutInput(request({ body: { ...CHECKOUT, end_user_reference: text } })));
    expect(reference('👨‍👩‍👧'.repeat(20))).toBeUndefined();
    expect(reference('👨‍👩‍👧'.repeat(21))).toEqual({ end_user_reference: 'must be at most 100 characters' });
  });

  it.each([
    ['right-to-left override', '\u202e'],
    ['left-to-right isolate', '\u2066'],
    ['right-to-left mark', '\u200f'],
    ['zero-width space', '\u200b'],
    ['zero-width joiner', '\u200d'],
    ['word joiner', '\u2060'],
    ['byte order mark', '\ufeff'],
    ['no-break space', '\u00a0'],
    ['Cyrillic look-alike letter', '\u0430'],
  ])('a refund address with a %s is refused', (_name, bad) => {
    expect(refused(refund({ address: `bc1q${bad}example` }))).toEqual(['address']);
  });
});

// The exact message of each rule, pinned so that how inputs are validated can change underneath.
describe('messages', () => {
  test('checkout: every field at fault is named with its own message, unknown ones last', () => {
    const body = {
      foreign_id: '..',
      amount: '1.123456789',
      currency: 'eur',
      title: ' ',
      email: 'plain',
      url_success: 'ftp://shop.example',
      url_failed: 'x'.repeat(2049),
      timer: 'yes',
      sender_currency: 42,
      description: 'a\u0000b',
      end_user_reference: 'r'.repeat(101),
      type: 'partial',
      extra: 1,
    };
    const parsed = JSON.parse(JSON.stringify(body).replace('}', ',"__proto__":2}'));
    expect(Object.entries(refusal(() => checkoutInput(request({ body: parsed }))) ?? {})).toEqual([
      ['foreign_id', 'must be 1 to 64 letters, digits, ".", "_", ":" or "-", and not "." or ".."'],
      ['amount', 'has more than 8 fractional digits'],
      ['currency', 'must be an upper-case currency code such as "BTC"'],
      ['title', 'must not be empty'],
      ['email', 'must be an e-mail address'],
      ['url_success', 'must be an absolute http(s) URL'],
      ['url_failed', 'must be at most 2048 characters'],
      ['timer', 'must be true or false'],
      ['sender_currency', 'must be a string'],
      ['description', 'must not contain control characters or lone surrogates'],
      ['end_user_reference', 'must be at most 100 characters'],
      ['type', 'must be one of fill_or_kill, good_until_expired'],
      ['extra', 'is not a known field'],
      ['__proto__', 'is not a known field'],
    ]);
  });

  test.each([
    [
      'a missing or null required field',
      { amount: null, title: undefined },
      { amount: 'is required', title: 'is required' },
    ],
    [
      'a title too long, in code points',
      { title: '☕'.repeat(51) },
      { title: 'must be at most 50 characters' },
    ],
    ['an amount of zero', { amount: '0.00' }, { amount: 'must be greater than zero' }],
    [
      'an amount not a decimal',
      { amount: '1e3' },
      { amount: 'must be a plain non-negative decimal such as "10.5"' },
    ],
    ['an amount not a string', { amount: true }, { amount: 'must be a decimal string' }],
    ['an amount too long', { amount: '1'.repeat(65) }, { amount: 'must be at most 64 characters' }],
    ['an amount too large', { amount: '1'.repeat(31) }, { amount: 'has more than 30 integer digits' }],
    [
      'an e-mail address with a control character',
      { email: 'a\u0007b@c.de' },
      { email: 'must not contain control characters or lone surrogates' },
    ],
    [
      'a url that does not parse',
      { url_success: 'https://' },
      { url_success: 'must be an absolute http(s) URL' },
    ],
  ])('checkout: %s', (_name, fields, expected) => {
    expect(refusal(() => checkoutInput(request({ body: { ...CHECKOUT, ...fields } })))).toEqual(expected);
  });

  test('checkout: a body that is not an object names the body, and every required field', () => {
    expect(refusal(() => checkoutInput(request({ body: ['x'] })))).toEqual({
      body: 'must be a JSON object',
      foreign_id: 'is required',
      amount: 'is required',
      currency: 'is required',
      title: 'is required',
      email: 'is required',
      url_success: 'is required',
      url_failed: 'is required',
    });
  });

  test('checkout: what is accepted, normalised, and null read as absent', () => {
    expect(
      checkoutInput(
        request({ body: { ...CHECKOUT, timer: 'false', sender_currency: null, type: 'fill_or_kill' } }),
      ),
    ).toEqual({
      foreignId: 'order-1',
      amount: '25.50000000',
      currency: 'EUR',
      title: 'Order 1',
      email: 'buyer@example.com',
      urlSuccess: 'https://shop.example/ok',
      urlFailed: 'https://shop.example/failed',
      timer: false,
      type: 'fill_or_kill',
    });
    expect(checkoutInput(request({ body: CHECKOUT })).timer).toBe(true);
  });

  test('refund: the address and the amount', () => {
    const body = {
      foreign_id: 'r-1',
      debited_currency: 'EUR',
      currency: 'BTC',
      debited_amount: '0',
      address: 'bc1q x',
    };
    expect(refusal(() => refundInput(request({ body })))).toEqual({
      debited_amount: 'must be greater than zero',
      address: 'must be printable ASCII with no spaces',
    });
    expect(refundInput(request({ body: { ...body, debited_amount: '10', address: 'bc1qx' } }))).toEqual({
      foreignId: 'r-1',
      senderCurrency: 'EUR',
      receivedCurrency: 'BTC',
      senderAmount: '10.00000000',
      address: 'bc1qx',
    });
  });

  test('queries: pairs, transactions, balances and history', () => {
    expect(refusal(() => pairInput(request({ query: { from: 'btc', x: '1' } })))).toEqual({
      from: 'must be an upper-case currency code such as "BTC"',
      to: 'is required',
      x: 'is not a known field',
    });
    expect(pairInput(request({ query: { from: 'BTC', to: 'EUR' } }))).toEqual({
      currency_from: 'BTC',
      currency_to: 'EUR',
    });
    expect(refusal(() => transactionInput(request({ query: { id: 'abc' } })))).toEqual({
      id: 'must be a whole number',
    });
    expect(refusal(() => transactionInput(request({ query: { id: '0' } })))).toEqual({
      id: 'must be a positive whole number',
    });
    expect(refusal(() => transactionInput(request({ query: {} })))).toEqual({
      id: 'give exactly one of id or foreign_id',
      foreign_id: 'give exactly one of id or foreign_id',
    });
    expect(transactionInput(request({ query: { foreign_id: 'a' } }))).toEqual({ foreign_id: 'a' });
    expect(refusal(() => balancesInput(request({ query: { live: 'yes' } })))).toEqual({
      live: 'must be true or false',
    });
    expect(balancesInput(request({}))).toEqual({ live: false });
    expect(balancesInput(request({ query: { live: 'true' } }))).toEqual({ live: true });
    expect(refusal(() => historyInput(request({ query: { since: 'soon', limit: '0' } })))).toEqual({
      since: 'must be an ISO 8601 UTC time, such as 2026-11-23T07:52:25.679Z',
      limit: 'must be between 1 and 100',
    });
    expect(historyInput(request({ query: { since: '2026-01-01T00:00:00.000Z', limit: '5' } }))).toEqual({
      since: Date.parse('2026-01-01T00:00:00.000Z'),
      limit: 5,
    });
    expect(historyInput(request({}))).toEqual({ since: 0, limit: 20 });
    expect(refusal(() => foreignIdInput(request({ path: { foreign_id: 'a/b' } })))).toEqual({
      foreign_id: 'must be 1 to 64 letters, digits, ".", "_", ":" or "-", and not "." or ".."',
    });
  });
});

describe('metadata', () => {
  const withMetadata = (metadata: unknown) => checkout({ metadata });

  test('up to 20 keys of up to 40 characters, each a string of up to 500, kept as given with the keys sorted', () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [
        `k${String(19 - i).padStart(2, '0')}.${'x'.repeat(36)}`,
        'é'.repeat(500),
      ]),
    );
    metadata['k00.' + 'x'.repeat(36)] = 'line one\nline two';
    const read = checkoutInput(request({ body: { ...CHECKOUT, metadata } }));
    expect(read.metadata).toEqual(metadata);
    expect(Object.keys(read.metadata!)).toEqual(Object.keys(metadata).sort());
    expect(checkoutInput(request({ body: { ...CHECKOUT, metadata: {} } })).metadata).toEqual({});
  });

  test('absent, it is left out', () => {
    expect(checkoutInput(request({ body: CHECKOUT })).metadata).toBeUndefined();
  });

  test.each([
    ['not an object', 'refund-1', ['metadata']],
    ['an array', ['a'], ['metadata']],
    ['21 keys', Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])), ['metadata']],
    ['a key too long', { ['k'.repeat(41)]: 'v' }, ['metadata']],
    ['an empty key', { '': 'v' }, ['metadata']],
    ['a key with a space or a control character', { 'order id': 'v', 'a\u0000b': 'v' }, ['metadata']],
    ['a value not a string', { order: 1001 }, ['metadata.order']],
    ['a value too long', { note: 'x'.repeat(501) }, ['metadata.note']],
    ['a value with a control character', { note: 'a\u0007b' }, ['metadata.note']],
    ['values at fault under two keys', { a: null, b: ['x'] }, ['metadata.a', 'metadata.b']],
  ])('%s: 400 naming the field', (_name, metadata, fields) => {
    expect(refused(withMetadata(metadata))).toEqual(fields);
  });

  test('a key like __proto__ is an ordinary key', () => {
    const metadata = JSON.parse('{"__proto__": "x", "constructor": "y"}');
    const read = checkoutInput(request({ body: { ...CHECKOUT, metadata } })).metadata!;
    expect(Object.getPrototypeOf(read)).toBe(Object.prototype);
    expect(Object.entries(read)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
    ]);
  });
});

describe('since', () => {
  const since = (value: string) => () => historyInput(request({ query: { since: value } }));

  test.each(['2026-11-23T07:52:25.679Z', '2026-11-23T07:52:25Z'])('%s is read', (value) => {
    expect(refused(since(value))).toBeUndefined();
  });

  test('as the exact instant', () => {
    expect(historyInput(request({ query: { since: '2026-11-23T07:52:25.679Z' } })).since).toBe(
      Date.UTC(2026, 10, 23, 7, 52, 25, 679),
    );
  });

  test.each([
    '2026-11-23',
    '2026-11-23T07:52:25',
    '2026-11-23T08:52+01:00',
    '2026-11-23T08:52:25.679+01:00',
    'November 23, 2026',
    '1764000000',
    '2026-13-40T00:00:00Z',
  ])('%s is refused: not UTC, or not ISO 8601, as created_after and created_before refuse it', (value) => {
    expect(refused(since(value))).toEqual(['since']);
  });
});
