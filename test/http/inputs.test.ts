// Route inputs: what each field accepts and refuses, naming the field.
import { HttpError } from '../../http/errors';
import { checkoutInput, foreignIdInput, healthInput, refundInput, transactionInput } from '../../http/inputs';
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
