import { api, control, createInvoice, invoiceRequest, useSandbox } from './support';

// Spec 2.1 (request fields), 2.2 (response object and creation combinations), 3 (states), 7.1 and 8 (limits).

const NOW_MS = 1_700_000_000_000;
const NOW_S = NOW_MS / 1000;
const getSandbox = useSandbox({ now: () => NOW_MS });

const create = (overrides: Record<string, unknown>) =>
  api(getSandbox(), 'POST', '/v2/invoices/create', invoiceRequest(overrides));

async function fieldErrors(overrides: Record<string, unknown>): Promise<Record<string, string>> {
  const answer = await create(overrides);
  expect(answer.status).toBe(400);
  return answer.json.errors;
}

describe('2.1 Invoice (request fields, create)', () => {
  test('type: fill_or_kill, good_until_expired or omitted; anything else is refused', async () => {
    expect((await create({ type: 'fill_or_kill' })).status).toBe(201);
    expect((await create({ type: 'good_until_expired' })).status).toBe(201);
    expect((await create({})).status).toBe(201);
    expect(await fieldErrors({ type: 'all_or_nothing' })).toEqual({ type: 'The selected type is invalid.' });
  });

  test('end_user_reference: optional string, echoed, must not be personal data', async () => {
    expect((await createInvoice(getSandbox(), { end_user_reference: 'cust-42' })).end_user_reference).toBe(
      'cust-42',
    );
    expect(Object.keys(await fieldErrors({ end_user_reference: 'jane@example.com' }))).toEqual([
      'end_user_reference',
    ]);
    expect(Object.keys(await fieldErrors({ end_user_reference: 42 }))).toEqual(['end_user_reference']);
  });

  test('timer: required boolean', async () => {
    expect(await fieldErrors({ timer: undefined })).toEqual({ timer: 'The timer field is required.' });
    expect(await fieldErrors({ timer: 'true' })).toEqual({ timer: 'The timer field must be true or false.' });
  });

  test('title: required, length 1 to 50', async () => {
    expect(await fieldErrors({ title: undefined })).toEqual({ title: 'The title field is required.' });
    expect(await fieldErrors({ title: '' })).toEqual({ title: 'The title field is required.' });
    expect((await create({ title: 'x'.repeat(50) })).status).toBe(201);
    expect(Object.keys(await fieldErrors({ title: 'x'.repeat(51) }))).toEqual(['title']);
  });

  test('description: optional, at most 1000 characters', async () => {
    expect((await create({ description: 'd'.repeat(1000) })).status).toBe(201);
    expect(Object.keys(await fieldErrors({ description: 'd'.repeat(1001) }))).toEqual(['description']);
  });

  test('foreign_id: required and must not repeat', async () => {
    expect(await fieldErrors({ foreign_id: undefined })).toEqual({
      foreign_id: 'The foreign id field is required.',
    });
    await create({ foreign_id: 'order-7' });
    expect(await fieldErrors({ foreign_id: 'order-7' })).toEqual({
      foreign_id: 'The foreign id has already been taken.',
    });
  });

  test('currency: required, from the list of API currency codes', async () => {
    expect(await fieldErrors({ currency: undefined })).toEqual({
      currency: 'The currency field is required.',
    });
    expect(await fieldErrors({ currency: 'DOGE' })).toEqual({
      currency: 'The selected currency is invalid.',
    });
  });

  test('sender_currency: optional, a supported cryptocurrency', async () => {
    expect((await create({ timer: true, sender_currency: 'BTC' })).status).toBe(201);
    expect(Object.keys(await fieldErrors({ timer: true, sender_currency: 'NOPE' }))).toEqual([
      'sender_currency',
    ]);
    expect(Object.keys(await fieldErrors({ timer: true, sender_currency: 'EUR' }))).toEqual([
      'sender_currency',
    ]);
  });

  test('amount: required, numeric (JSON number or numeric string), not below the minimum', async () => {
    expect(await fieldErrors({ amount: undefined })).toEqual({ amount: 'The amount field is required.' });
    expect(await fieldErrors({ amount: 'ten' })).toEqual({ amount: 'The amount field must be a number.' });
    expect(await fieldErrors({ amount: '0.5' })).toEqual({
      amount: 'The amount field must be at least 1.00000000.',
    });
    expect(Object.keys(await fieldErrors({ amount: '-5' }))).toEqual(['amount']);
    expect(Object.keys(await fieldErrors({ amount: '1.123456789' }))).toEqual(['amount']);
  });

  test('amount: a JSON number keeps its exact digits', async () => {
    const body = JSON.stringify(invoiceRequest({ currency: 'BTC', amount: 0 })).replace(
      '"amount":0',
      '"amount":0.12345678',
    );
    const answer = await api(getSandbox(), 'POST', '/v2/invoices/create', body);
    expect(answer.status).toBe(201);
    expect(answer.json.data.amount).toBe('0.12345678');
  });

  test.each(['1e500000', '1e9000000000000000', `1${'0'.repeat(30)}`])(
    'amount: %s, more than 30 integer digits, is refused without being written out',
    async (token) => {
      const body = JSON.stringify(invoiceRequest({ amount: 0 })).replace('"amount":0', `"amount":${token}`);
      const answer = await api(getSandbox(), 'POST', '/v2/invoices/create', body);
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.json.errors)).toEqual(['amount']);
    },
  );

  test.each(['url_success', 'url_failed'])('%s: required absolute http(s) URI', async (field) => {
    expect(await fieldErrors({ [field]: undefined })).toEqual({
      [field]: `The ${field.replace('_', ' ')} field is required.`,
    });
    expect(Object.keys(await fieldErrors({ [field]: 'not a url' }))).toEqual([field]);
    expect(Object.keys(await fieldErrors({ [field]: 'ftp://shop.test/x' }))).toEqual([field]);
  });

  test('email_user: required e-mail address', async () => {
    expect(Object.keys(await fieldErrors({ email_user: undefined }))).toEqual(['email_user']);
    expect(await fieldErrors({ email_user: 'not-an-email' })).toEqual({
      email_user: 'The email user field must be a valid email address.',
    });
  });
});

describe('2.2 Invoice (response object, under data)', () => {
  const ALWAYS_PRESENT = [
    'id',
    'url',
    'foreign_id',
    'address',
    'title',
    'status',
    'currency',
    'amount',
    'sender_currency',
    'sender_amount',
    'fixed_at',
    'release_at',
    'seconds_left',
  ];

  test('always present: id, url, foreign_id, address, title, status, currency, amount, sender_*, fixed_at, release_at, seconds_left', async () => {
    const answer = await create({});
    expect(answer.status).toBe(201);
    expect(Object.keys(answer.json)).toEqual(['data']);
    expect(Object.keys(answer.json.data).sort()).toEqual([...ALWAYS_PRESENT].sort());
  });

  test('id: int32, sequential', async () => {
    const first = await createInvoice(getSandbox());
    const second = await createInvoice(getSandbox());
    expect(Number.isInteger(first.id) && first.id < 2 ** 31).toBe(true);
    expect(second.id).toBe(first.id + 1);
  });

  test('url: the invoice URL, which serves a page', async () => {
    const invoice = await createInvoice(getSandbox());
    expect(invoice.url).toBe(`${getSandbox().url}/pay/${invoice.id}`);
    const page = await fetch(invoice.url);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Order 1001');
  });

  test('foreign_id: the merchant ID', async () => {
    expect((await createInvoice(getSandbox(), { foreign_id: 'shop-9' })).foreign_id).toBe('shop-9');
  });

  test('end_user_reference: echoed only when sent', async () => {
    expect(await createInvoice(getSandbox())).not.toHaveProperty('end_user_reference');
    expect((await createInvoice(getSandbox(), { end_user_reference: 'u1' })).end_user_reference).toBe('u1');
  });

  test('address: null while not assigned, set with a pre-selected currency', async () => {
    expect((await createInvoice(getSandbox(), { timer: true })).address).toBeNull();
    expect((await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC' })).address).toMatch(
      /^bc1q/,
    );
  });

  test('tag: present only for currencies that support tags', async () => {
    const xrp = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP' });
    expect(xrp.tag).toBe(String(xrp.id));
    expect(await createInvoice(getSandbox(), { timer: true, sender_currency: 'ETH' })).not.toHaveProperty(
      'tag',
    );
  });

  test('title: the invoice title', async () => {
    expect((await createInvoice(getSandbox(), { title: 'Socks' })).title).toBe('Socks');
  });

  test('status: created or pending for a new invoice', async () => {
    expect((await createInvoice(getSandbox(), { timer: false })).status).toBe('created');
    expect((await createInvoice(getSandbox(), { timer: true })).status).toBe('pending');
  });

  test('currency: the invoice currency', async () => {
    expect((await createInvoice(getSandbox(), { currency: 'EUR' })).currency).toBe('EUR');
  });

  test('amount: string with 8 fractional digits', async () => {
    expect((await createInvoice(getSandbox(), { amount: 12.5 })).amount).toBe('12.50000000');
  });

  test('sender_currency: null without a pre-selected currency', async () => {
    expect((await createInvoice(getSandbox(), { timer: true })).sender_currency).toBeNull();
    expect((await createInvoice(getSandbox(), { timer: true, sender_currency: 'LTC' })).sender_currency).toBe(
      'LTC',
    );
  });

  test('sender_amount: the amount at the fixed rate, 8 digits, rounded up; null without a currency', async () => {
    // 100 USD at the published USD→BTC rate 0.00001666666667 is 0.001666666667, rounded up.
    const btc = await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC', amount: '100' });
    expect(btc.sender_amount).toBe('0.00166667');
    const xrp = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    expect(xrp.sender_amount).toBe('20.00000000');
    expect((await createInvoice(getSandbox(), { timer: true })).sender_amount).toBeNull();
  });

  test('fixed_at: Unix seconds of the quote; null without one', async () => {
    expect((await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC' })).fixed_at).toBe(NOW_S);
    expect((await createInvoice(getSandbox(), { timer: true })).fixed_at).toBeNull();
  });

  test('release_at: Unix seconds of expiry; null without a timer', async () => {
    expect((await createInvoice(getSandbox(), { timer: true })).release_at).toBe(NOW_S + 900);
    expect((await createInvoice(getSandbox(), { timer: false })).release_at).toBeNull();
  });

  test('seconds_left: seconds until expiry, from the clock; null without a timer', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true });
    expect(invoice.seconds_left).toBe(900);
    await control(getSandbox(), 'POST', '/clock', { advance_seconds: 60 });
    expect((await control(getSandbox(), 'GET', `/invoices/${invoice.foreign_id}`)).json.seconds_left).toBe(
      840,
    );
    expect((await createInvoice(getSandbox(), { timer: false })).seconds_left).toBeNull();
  });
});

describe('2.2 observed combinations on creation', () => {
  test('timer false: created; address null; sender_currency, sender_amount, fixed_at null; release_at, seconds_left null', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: false, sender_currency: 'BTC' });
    expect(invoice).toMatchObject({
      status: 'created',
      address: null,
      sender_currency: null,
      sender_amount: null,
      fixed_at: null,
      release_at: null,
      seconds_left: null,
    });
  });

  test('timer true, no sender_currency: pending; address null; quote null; release_at, seconds_left set', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true });
    expect(invoice).toMatchObject({
      status: 'pending',
      address: null,
      sender_currency: null,
      sender_amount: null,
      fixed_at: null,
      release_at: NOW_S + 900,
      seconds_left: 900,
    });
  });

  test('timer true, with sender_currency: pending; address set; quote set; release_at, seconds_left set', async () => {
    const invoice = await createInvoice(getSandbox(), {
      timer: true,
      sender_currency: 'ETH',
      currency: 'EUR',
      amount: '50',
    });
    expect(invoice).toMatchObject({
      status: 'pending',
      address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
      sender_currency: 'ETH',
      sender_amount: '0.01800000',
      fixed_at: NOW_S,
      release_at: NOW_S + 900,
      seconds_left: 900,
    });
  });

  test('the address is deterministic per currency and invoice', async () => {
    const first = await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC' });
    await control(getSandbox(), 'POST', '/reset');
    const again = await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC' });
    expect(again.address).toBe(first.address);
  });
});

describe('3. States and transitions', () => {
  const cancel = (foreignId: string) =>
    api(getSandbox(), 'POST', `/v2/invoices/${encodeURIComponent(foreignId)}/cancel/`, {});
  const status = async (foreignId: string) =>
    (await control(getSandbox(), 'GET', `/invoices/${encodeURIComponent(foreignId)}`)).json.status;

  test('(none) + create invoice, timer false: created, address, quote and expiry fields null', async () => {
    expect(await createInvoice(getSandbox(), { timer: false })).toMatchObject({
      status: 'created',
      address: null,
    });
  });

  test('(none) + create invoice, timer true: pending, release_at and seconds_left set', async () => {
    expect(await createInvoice(getSandbox(), { timer: true })).toMatchObject({
      status: 'pending',
      seconds_left: 900,
    });
  });

  test.each(['created', 'pending', 'processing'])(
    '%s + cancel invoice: accepted, 200 [] and the invoice becomes failed',
    async (state) => {
      const invoice = await createInvoice(getSandbox(), {
        timer: state !== 'created',
        foreign_id: `a/b ${state}~1`,
      });
      if (state === 'processing') {
        await control(getSandbox(), 'POST', `/invoices/${encodeURIComponent(invoice.foreign_id)}/pay`, {
          kind: 'full',
          hold: true,
        });
      }
      expect(await status(invoice.foreign_id)).toBe(state);
      const answer = await cancel(invoice.foreign_id);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual([]);
      expect(await status(invoice.foreign_id)).toBe('failed');
    },
  );

  test.each(['confirmed', 'failed'])(
    '%s + cancel invoice: not allowed, unchanged, refused',
    async (state) => {
      const invoice = await createInvoice(getSandbox(), { timer: true });
      const path = `/invoices/${invoice.foreign_id}/${state === 'confirmed' ? 'pay' : 'expire'}`;
      await control(getSandbox(), 'POST', path, { kind: 'full' });
      const answer = await cancel(invoice.foreign_id);
      expect(answer.status).toBe(400);
      expect(answer.json).toEqual({
        errors: { error: 'Invoice cannot be failed in its current state.', code: 'invalid_invoice_state' },
      });
      expect(await status(invoice.foreign_id)).toBe(state);
    },
  );

  test('cancel of an unknown foreign_id is 404', async () => {
    const answer = await cancel('never-created');
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'Invoice not found', code: 'not_found' });
  });
});

describe('7.1 400 Bad Request on invoice creation', () => {
  test('Field validation failure: one entry per failing field, all missing required fields together', async () => {
    const answer = await api(getSandbox(), 'POST', '/v2/invoices/create', {});
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json)).toEqual(['errors']);
    expect(Object.keys(answer.json.errors).sort()).toEqual(
      [
        'amount',
        'currency',
        'email_user',
        'foreign_id',
        'timer',
        'title',
        'url_failed',
        'url_success',
      ].sort(),
    );
  });

  test('Field validation failure: mixed failures are reported together', async () => {
    await create({ foreign_id: 'dup-1' });
    const errors = await fieldErrors({
      foreign_id: 'dup-1',
      currency: 'XYZ',
      email_user: 'x',
      type: 'odd',
      amount: 'x',
    });
    expect(Object.keys(errors).sort()).toEqual(['amount', 'currency', 'email_user', 'foreign_id', 'type']);
  });

  test('Invoice feature disabled for the merchant: {message} naming invoices_enabled', async () => {
    await control(getSandbox(), 'POST', '/features', { invoices_enabled: false });
    const answer = await create({});
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json)).toEqual(['message']);
    expect(answer.json.message).toContain('invoices_enabled');
    await control(getSandbox(), 'POST', '/features', { invoices_enabled: true });
    expect((await create({})).status).toBe(201);
  });

  test('Body not valid JSON, or Content-Type not application/json: bad_content_format', async () => {
    const answer = await api(getSandbox(), 'POST', '/v2/invoices/create', '{"timer": tru');
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe('bad_content_format');
  });
});

describe('8. Limits', () => {
  test('title length: 1 to 50 characters (counted as characters, not bytes)', async () => {
    expect((await create({ title: 'é'.repeat(50) })).status).toBe(201);
    expect(Object.keys(await fieldErrors({ title: 'é'.repeat(51) }))).toEqual(['title']);
  });

  test('description length: at most 1000 characters', async () => {
    expect(Object.keys(await fieldErrors({ description: 'é'.repeat(1001) }))).toEqual(['description']);
  });

  test('invoice lifetime with timer true: 15 minutes from creation', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true });
    await control(getSandbox(), 'POST', '/clock', { advance_seconds: 899 });
    expect((await control(getSandbox(), 'GET', `/invoices/${invoice.foreign_id}`)).json.status).toBe(
      'pending',
    );
    await control(getSandbox(), 'POST', '/clock', { advance_seconds: 1 });
    const expired = (await control(getSandbox(), 'GET', `/invoices/${invoice.foreign_id}`)).json;
    expect(expired).toMatchObject({
      status: 'failed',
      error: 'Timer expired. User not paid.',
      seconds_left: 0,
    });
  });

  test('minimum invoice amount: per currency; violation is a 400 error on amount', async () => {
    expect((await create({ currency: 'BTC', amount: '0.0001' })).status).toBe(201);
    expect(await fieldErrors({ currency: 'BTC', amount: '0.00009999' })).toEqual({
      amount: 'The amount field must be at least 0.00010000.',
    });
    expect(Object.keys(await fieldErrors({ currency: 'TRX', amount: '9.99' }))).toEqual(['amount']);
  });

  test('minimum invoice amount with exchange: min_amount_deposit_with_exchange of the currency', async () => {
    expect(
      Object.keys(
        await fieldErrors({ currency: 'USD', amount: '4.99', timer: true, sender_currency: 'BTC' }),
      ),
    ).toEqual(['amount']);
    expect((await create({ currency: 'USD', amount: '5', timer: true, sender_currency: 'BTC' })).status).toBe(
      201,
    );
  });
});

describe('4.7 Lookups of an invoice and of its deposits', () => {
  const lookup = (id: number) => api(getSandbox(), 'GET', `/v2/transactions/info?id=${id}`);

  afterEach(async () => {
    await control(getSandbox(), 'POST', '/features', { invoice_lookups: true });
  });

  test("an invoice's id is found only while invoice_lookups is on; its deposits always, by their own ids", async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    const paid = await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/pay`, {
      kind: 'full',
      hold: true,
    });
    expect(paid.status).toBe(200);
    const record = (await lookup(invoice.id)).json;
    expect(record).toMatchObject({ id: invoice.id, type: 'invoice', status: 'processing' });
    const [deposit] = record.transactions;
    expect(deposit.id).not.toBe(invoice.id);

    const switched = await control(getSandbox(), 'POST', '/features', { invoice_lookups: false });
    expect(switched.json).toEqual({
      invoices_enabled: true,
      invoice_lookups: false,
      cancel_error: 'Invoice cancelled by merchant.',
    });
    expect((await lookup(invoice.id)).status).toBe(404);
    expect((await lookup(deposit.id)).json).toEqual({
      id: deposit.id,
      foreign_id: invoice.foreign_id,
      type: 'deposit',
      crypto_address: expect.objectContaining({ currency: 'XRP' }),
      currency_sent: { currency: 'XRP', amount: 20 },
      currency_received: { currency: 'XRP', amount: 20 },
      transactions: [expect.objectContaining({ id: deposit.id, confirmations: 0 })],
      fees: [],
      error: '',
      status: 'processing',
    });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/settle`);
    expect((await lookup(deposit.id)).json.status).toBe('confirmed');
  });

  test('invoice_lookups must be a boolean; a reset switches it back on', async () => {
    expect((await control(getSandbox(), 'POST', '/features', { invoice_lookups: 'no' })).status).toBe(400);
    expect((await control(getSandbox(), 'POST', '/features', {})).status).toBe(400);
    await control(getSandbox(), 'POST', '/features', { invoice_lookups: false });
    await control(getSandbox(), 'POST', '/reset');
    const invoice = await createInvoice(getSandbox(), {});
    expect((await lookup(invoice.id)).status).toBe(200);
  });
});
