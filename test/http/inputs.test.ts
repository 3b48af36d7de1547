// Route inputs: what each field accepts and refuses, naming the field.
import { HttpError } from '../../http/errors';
import { checkoutInput, foreignIdInput, healthInput, refundInput, transactionInput } from '../../http/inputs';
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
  sender_currency: 'EUR',
  received_currency: 'BTC',
  sender_amount: '10',
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

/** The fields a refusal names, or undefined when the input is accepted. */
function refused(read: () => unknown): string[] | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(400);
    return Object.keys((error as HttpError).fields ?? {});
  }
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
    expect(refused(refund({ sender_amount: amount }))).toEqual(['sender_amount']);
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

  test.each(['2026-11-23T07:52:25.679Z', '2026-11-23T07:52:25Z', '2026-11-23T08:52+01:00'])(
    '%s is read',
    (value) => {
      expect(refused(since(value))).toBeUndefined();
    },
  );

  test('as the exact instant', () => {
    expect(historyInput(request({ query: { since: '2026-11-23T07:52:25.679Z' } })).since).toBe(
      Date.UTC(2026, 10, 23, 7, 52, 25, 679),
    );
  });

  test.each(['2026-11-23', '2026-11-23T07:52:25', 'November 23, 2026', '1764000000', '2026-13-40T00:00:00Z'])(
    '%s is refused: no offset, or not ISO 8601',
    (value) => {
      expect(refused(since(value))).toEqual(['since']);
    },
  );
});
