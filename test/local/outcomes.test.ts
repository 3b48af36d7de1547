// Every outcome a shop must tell apart, driven through the sandbox and its callbacks, read from the poll alone.
import { checkoutBody, checkoutMade, startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // refused cancels log warnings; keep the run quiet
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

/** Generous for a loaded machine; each wait ends as soon as the callbacks have arrived. */
const CALLBACKS_MS = 30_000;

const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const TIME_FIELDS = ['fixed_at', 'expires_at', 'created_at', 'updated_at'];

const checkout = (foreignId: string, overrides?: Record<string, unknown>) =>
  checkoutMade(harness, foreignId, { timer: true, ...overrides });

const sandbox = async (foreignId: string, action: string, body: object = {}) => {
  const answer = await harness.control('POST', `/invoices/${foreignId}/${action}`, body);
  expect(answer.status).toBe(200);
};

const poll = (foreignId: string) => harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });

/** Polls until the callbacks have moved the invoice to `status` (and `exception`, where given). */
const settled = async (foreignId: string, status: string, exception?: string | null) =>
  (
    await waitFor(
      () => poll(foreignId),
      ({ body }: Answer) =>
        body.status === status && (exception === undefined || body.exception === exception),
      CALLBACKS_MS,
    )
  ).body;

const expectIsoTimes = (view: Record<string, unknown>) => {
  for (const field of TIME_FIELDS) if (view[field] !== null) expect(view[field]).toMatch(ISO_MS);
  for (const change of view.history as Array<{ at: string }>) expect(change.at).toMatch(ISO_MS);
};

test.each([
  ['paid exactly', 'out-exact', {}, [['pay', { kind: 'full' }]], 'paid', null],
  ['paid over', 'out-over', {}, [['pay', { kind: 'over' }]], 'paid', 'paid_over'],
  ['paid late', 'out-late', {}, [['expire'], ['pay', { kind: 'full' }]], 'expired', 'paid_late'],
  [
    'paid partially, then topped up',
    'out-topped-up',
    { type: 'good_until_expired' },
    [
      ['pay', { kind: 'partial' }],
      ['pay', { kind: 'full' }],
    ],
    'paid',
    null,
  ],
  [
    'paid partially, then the time ran out',
    'out-partly-expired',
    { type: 'good_until_expired' },
    [['pay', { kind: 'partial' }], ['expire']],
    'underpaid',
    null,
  ],
  ['paid too little', 'out-under', {}, [['pay', { kind: 'under' }]], 'underpaid', null],
  ['expired with nothing paid', 'out-expired', {}, [['expire']], 'expired', null],
  [
    'failed for another reason',
    'out-failed',
    {},
    [['fail', { error: 'Processing took over 24 hours.' }]],
    'failed',
    null,
  ],
] as const)(
  '%s: status and exception tell it apart',
  async (_name, foreignId, overrides, steps, status, exception) => {
    await checkout(foreignId, overrides);
    for (const [action, body] of steps) await sandbox(foreignId, action, body);

    const view = await settled(foreignId, status, exception);

    expect(view).toMatchObject({ status, exception, final: true, seconds_left: null });
    expect(view.failure_message).toBe(status === 'failed' ? 'Processing took over 24 hours.' : null);
    expectIsoTimes(view);
  },
);

test('cancelled by the store', async () => {
  await checkout('out-cancelled');
  const answer = await harness.api('POST', '/invoices/out-cancelled/cancel', { token: 'admin' });
  expect(answer.status).toBe(200);
  expect(answer.body).toMatchObject({ status: 'cancelled', exception: null, final: true });
});

test('while open: awaiting payment, part paid, then confirming', async () => {
  const created = await checkout('out-open', { type: 'good_until_expired' });
  expect(created).toMatchObject({ status: 'awaiting_payment', exception: null, final: false });
  expect(created.seconds_left).toBeGreaterThan(0);
  expectIsoTimes(created);

  await sandbox('out-open', 'pay', { kind: 'partial' });
  const partly = await settled('out-open', 'awaiting_payment', 'paid_partial');
  expect(partly.final).toBe(false);

  await sandbox('out-open', 'pay', { kind: 'full', hold: true });
  const confirming = await settled('out-open', 'confirming');
  expect(confirming).toMatchObject({ exception: null, final: false, owed_amount: '0.00000000' });
});

describe('amounts: exact decimal strings, in the currency each is in', () => {
  test('paid over: the order, the quote, what came in, what the store was credited and the fee', async () => {
    const created = await checkout('amounts-over', { amount: '10', currency: 'USD', sender_currency: 'XRP' });
    expect(created).toMatchObject({
      amount: '10.00000000',
      currency: 'USD',
      pay_currency: 'XRP',
      pay_amount: '20.00000000',
      paid_amount: '0.00000000',
      owed_amount: '20.00000000',
      processor_invoice_id: expect.any(Number),
      payment_url: expect.stringMatching(/^http/),
    });

    await sandbox('amounts-over', 'pay', { kind: 'over', amount: '25' });

    expect(await settled('amounts-over', 'paid')).toMatchObject({
      exception: 'paid_over',
      pay_amount: '20.00000000',
      paid_amount: '25.00000000',
      owed_amount: '0.00000000',
      net_amount: '9.90000000',
      net_currency: 'USD',
      fees: [{ currency: 'USD', amount: '0.10000000' }],
    });
  });
});

describe('metadata', () => {
  test('kept with the order and returned as given; the same pairs in another order are the same checkout', async () => {
    const metadata = { order_number: '1001', 'customer:segment': 'gold', note: 'Leave at the door,\nplease' };
    const created = await checkout('meta-1', { metadata });
    expect(created.metadata).toEqual(metadata);
    expect((await poll('meta-1')).body.metadata).toEqual(metadata);

    const reordered = Object.fromEntries(Object.entries(metadata).reverse());
    const again = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('meta-1', { timer: true, metadata: reordered }),
    });
    expect(again.status).toBe(200);

    const other = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('meta-1', { timer: true, metadata: { ...metadata, note: 'other' } }),
    });
    expect(other.status).toBe(409);
  });

  test('bad metadata is a 400 naming the field, and nothing is written or sent', async () => {
    const answer = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('meta-bad', { metadata: { note: 'x'.repeat(501) } }),
    });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.error.fields)).toEqual(['metadata.note']);
    expect((await poll('meta-bad')).status).toBe(404);
    expect(await harness.upstreamRequests('/v2/invoices/create')).not.toContainEqual(
      expect.objectContaining({ body: expect.stringContaining('meta-bad') }),
    );
  });
});

describe('cancel rules', () => {
  test('refused with payment_confirming while the payment confirms, and invoice_paid once paid', async () => {
    await checkout('rule-cancel');
    await sandbox('rule-cancel', 'pay', { kind: 'full', hold: true });
    await settled('rule-cancel', 'confirming');

    const confirming = await harness.api('POST', '/invoices/rule-cancel/cancel', { token: 'admin' });
    expect(confirming.status).toBe(409);
    expect(confirming.body.error.code).toBe('payment_confirming');

    await sandbox('rule-cancel', 'settle');
    await settled('rule-cancel', 'paid');
    const paid = await harness.api('POST', '/invoices/rule-cancel/cancel', { token: 'admin' });
    expect(paid.status).toBe(409);
    expect(paid.body.error.code).toBe('invoice_paid');
    expect((await harness.upstreamRequests('/v2/invoices/rule-cancel/cancel/')).length).toBe(0);
  });
});

describe('polling with an ETag', () => {
  test('304 with no body while nothing changed, from one read and no call to the service; 200 once it has', async () => {
    await checkout('etag-1');
    const first = await poll('etag-1');
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const upstreamBefore = (await harness.upstreamRequests('/v2/*')).length;

    const again = await harness.api('GET', '/invoices/etag-1', {
      token: 'storefront',
      headers: { 'if-none-match': etag },
    });

    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect((await harness.upstreamRequests('/v2/*')).length).toBe(upstreamBefore);

    await sandbox('etag-1', 'pay', { kind: 'full' });
    await settled('etag-1', 'paid');
    const changed = await harness.api('GET', '/invoices/etag-1', {
      token: 'storefront',
      headers: { 'if-none-match': etag },
    });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });
});
