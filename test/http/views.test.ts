import fc from 'fast-check';
import type { InvoiceDetails, InvoiceRecord, RefundRecord } from '../../domain/model';
import {
  etagMatches,
  invoiceEtag,
  invoiceView,
  publicInvoiceView,
  refundView,
  snapshotView,
} from '../../http/views';

const RELEASE_AT = 1_900_000_900;
const PAST_RELEASE_MS = (RELEASE_AT + 60) * 1000;
const ISO_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const invoice = (overrides: Partial<InvoiceRecord>): InvoiceRecord =>
  ({
    foreignId: 'order-1',
    version: 3,
    phase: 'sent',
    request: { title: 'Order', currency: 'EUR', amount: '25.50000000' },
    invoice: { id: 7, url: 'https://pay.example/7', releaseAt: RELEASE_AT } as InvoiceDetails,
    status: 'pending',
    payment: null,
    cancelled: false,
    error: null,
    history: [{ status: 'pending', at: 1_900_000_000_123, source: 'create' }],
    createdAt: 1_900_000_000_123,
    updatedAt: 1_900_000_000_456,
    ...overrides,
  }) as InvoiceRecord;

const quoted = {
  id: 7,
  url: 'https://pay.example/7',
  address: 'bc1qaddress',
  senderCurrency: 'BTC',
  senderAmount: '0.00046000',
  fixedAt: RELEASE_AT - 900,
  releaseAt: RELEASE_AT,
} as InvoiceDetails;

describe('times', () => {
  test('every time is ISO 8601 UTC with milliseconds; the service seconds become ms', () => {
    const view = invoiceView(invoice({ invoice: quoted }), PAST_RELEASE_MS);
    expect(view).toMatchObject({
      created_at: '2030-03-17T17:46:40.123Z',
      updated_at: '2030-03-17T17:46:40.456Z',
      fixed_at: '2030-03-17T17:46:40.000Z',
      expires_at: '2030-03-17T18:01:40.000Z',
      history: [{ service_status: 'pending', at: '2030-03-17T17:46:40.123Z', source: 'create' }],
    });
    const record = {
      history: [{ status: 'processing', at: 1, source: 'create' }],
      createdAt: 1,
      updatedAt: 2,
    };
    const refund = refundView({ ...record, phase: 'sent', request: {} } as unknown as RefundRecord);
    for (const time of [refund.created_at, refund.updated_at, refund.history[0].at])
      expect(time).toMatch(ISO_MS);
    expect(snapshotView({ takenAt: 5, source: 'live', balances: [] }).taken_at).toBe(
      '1970-01-01T00:00:00.005Z',
    );
  });

  test('seconds_left counts down while open and is null once final or without a timer', () => {
    expect(invoiceView(invoice({}), (RELEASE_AT - 30) * 1000 + 999).seconds_left).toBe(30);
    expect(invoiceView(invoice({}), PAST_RELEASE_MS).seconds_left).toBe(0);
    expect(invoiceView(invoice({ status: 'confirmed' }), 0).seconds_left).toBeNull();
    expect(invoiceView(invoice({ status: 'failed' }), 0).seconds_left).toBeNull();
    expect(invoiceView(invoice({ invoice: { ...quoted, releaseAt: null } }), 0).seconds_left).toBeNull();
  });

  test('an invoice past its expiry stays awaiting payment until the service says otherwise', () => {
    expect(invoiceView(invoice({}), PAST_RELEASE_MS)).toMatchObject({
      status: 'awaiting_payment',
      final: false,
    });
  });
});

describe('amounts', () => {
  test('before any payment: the order, the quote, and all of it still owed', () => {
    expect(invoiceView(invoice({ invoice: quoted }), 0)).toMatchObject({
      amount: '25.50000000',
      currency: 'EUR',
      processor_invoice_id: 7,
      payment_url: 'https://pay.example/7',
      pay_currency: 'BTC',
      pay_amount: '0.00046000',
      pay_address: 'bc1qaddress',
      paid_amount: '0.00000000',
      owed_amount: '0.00046000',
      net_amount: null,
      fees: [],
    });
  });

  test('no payment currency yet: nothing to show in one', () => {
    expect(invoiceView(invoice({}), 0)).toMatchObject({
      pay_currency: null,
      pay_amount: null,
      paid_amount: null,
      owed_amount: null,
    });
  });

  test('a payment in a currency chosen on the payment page, and the settlement', () => {
    const view = invoiceView(
      invoice({
        status: 'confirmed',
        payment: {
          currency: 'ETH',
          amount: '0.02000000',
          due: '0.01944000',
          owed: '0.00000000',
          coverage: 'over',
        },
        settlement: {
          currency: 'EUR',
          net: '53.46000000',
          fees: [{ currency: 'EUR', amount: '0.54000000' }],
        },
      }),
      0,
    );
    expect(view).toMatchObject({
      status: 'paid',
      exception: 'paid_over',
      pay_currency: 'ETH',
      pay_amount: '0.01944000',
      paid_amount: '0.02000000',
      owed_amount: '0.00000000',
      net_amount: '53.46000000',
      net_currency: 'EUR',
      fees: [{ currency: 'EUR', amount: '0.54000000' }],
    });
  });

  test('metadata comes back as stored, and is an empty object when none was given', () => {
    const metadata = { order: '1001', note: 'gift' };
    expect(invoiceView(invoice({ request: { ...invoice({}).request, metadata } }), 0).metadata).toEqual(
      metadata,
    );
    expect(invoiceView(invoice({}), 0).metadata).toEqual({});
  });
});

describe('refunds', () => {
  const refund = (overrides: Partial<RefundRecord>) =>
    refundView({
      foreignId: 'refund-1',
      phase: 'sent',
      status: 'processing',
      request: {
        senderCurrency: 'EUR',
        senderAmount: '10.00000000',
        receivedCurrency: 'BTC',
        address: 'bc1q',
      },
      withdrawal: null,
      error: null,
      history: [],
      createdAt: 0,
      updatedAt: 0,
      ...overrides,
    } as RefundRecord);

  test('a rejected refund is final and shows the reason it was given', () => {
    expect(
      refund({ phase: 'rejected', status: null, error: 'sender_amount: Insufficient funds' }),
    ).toMatchObject({
      status: 'rejected',
      final: true,
      failure_message: 'sender_amount: Insufficient funds',
    });
  });

  test('one still being sent or processed is not final', () => {
    expect(refund({ phase: 'sending', status: null }).final).toBe(false);
    expect(refund({}).final).toBe(false);
    expect(refund({ status: 'failed', error: 'Address rejected' })).toMatchObject({
      final: true,
      failure_message: 'Address rejected',
    });
  });
});

describe('ETag', () => {
  test('strong, from the version: it changes with every write', () => {
    expect(invoiceEtag(invoice({ version: 3 }))).toMatch(/^"[^"]+"$/);
    expect(invoiceEtag(invoice({ version: 3 }))).not.toBe(invoiceEtag(invoice({ version: 4 })));
  });

  test('If-None-Match: a list, a weak form of the same tag, or *', () => {
    const etag = invoiceEtag(invoice({}));
    expect(etagMatches(undefined, etag)).toBe(false);
    expect(etagMatches(etag, etag)).toBe(true);
    expect(etagMatches(`"other", ${etag}`, etag)).toBe(true);
    expect(etagMatches(`W/${etag}`, etag)).toBe(true);
    expect(etagMatches('*', etag)).toBe(true);
    expect(etagMatches('"other"', etag)).toBe(false);
  });
});

test('every time in a view is written as toISOString writes it, whatever the year', () => {
  fc.assert(
    fc.property(fc.integer({ min: -8.64e15, max: 8.64e15 }), (ms) => {
      const view = snapshotView({ takenAt: ms, source: 'live', balances: [] });
      expect(view.taken_at).toBe(new Date(ms).toISOString());
    }),
    { numRuns: 20_000 },
  );
  for (const ms of [
    0,
    -1,
    253402300799999,
    253402300800000,
    -62135596800001,
    Date.UTC(2030, 0, 1, 9, 5, 7, 3),
  ]) {
    expect(snapshotView({ takenAt: ms, source: 'live', balances: [] }).taken_at).toBe(
      new Date(ms).toISOString(),
    );
  }
});

describe("the customer's view", () => {
  const request = {
    title: 'Order',
    currency: 'EUR',
    amount: '25.50000000',
    urlSuccess: 'https://shop.example/paid',
    urlFailed: 'https://shop.example/failed',
  } as InvoiceRecord['request'];
  const view = (overrides: Partial<InvoiceRecord>) =>
    publicInvoiceView(invoice({ request, invoice: quoted, ...overrides }), PAST_RELEASE_MS - 120_000);

  test('the rate is the order amount over the crypto amount, in exact decimals, to cents from 1 up', () => {
    // 25.50 / 0.00046 = 55434.7826...: a float would not round it differently here, but no float is asked.
    expect(view({}).rate).toBe('55434.78');
  });

  test("a cheap coin's rate keeps four significant digits", () => {
    const doge = { ...quoted, senderCurrency: 'DOGE', senderAmount: '170000.00000000' };
    expect(view({ invoice: doge }).rate).toBe('0.00015');
  });

  test('no rate before the currency to pay in is known, nor when it is the order currency', () => {
    const unquoted = { id: 7, url: 'https://pay.example/7', releaseAt: RELEASE_AT } as InvoiceDetails;
    expect(view({ invoice: unquoted }).rate).toBeNull();
    const same = { ...quoted, senderCurrency: 'EUR', senderAmount: '25.50000000' };
    expect(view({ invoice: same }).rate).toBeNull();
  });

  test('the confirmations the service reported, or null before any', () => {
    expect(view({}).confirmations).toBeNull();
    expect(view({ confirmations: 0 }).confirmations).toBe(0);
    expect(view({ confirmations: 3 }).confirmations).toBe(3);
  });
});
