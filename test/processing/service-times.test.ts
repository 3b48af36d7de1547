// Every time taken from the service is whole Unix seconds within one range before it is kept: a callback out of it
// is refused as bad input naming the field, an answer or lookup out of it is an unreadable answer (issue 40).
import { InvalidFieldsError, ServiceError } from '../../domain/errors';
import { isServiceTime, SERVICE_TIME_RANGE } from '../../domain/model';
import { toErrorResponse } from '../../http/errors';
import { ProcessingAdapter } from '../../processing/adapter';
import { verifyCallback } from '../../processing/callbacks';
import { ProcessingClient } from '../../processing/client';
import { ProcessingTimeRangeError, SERVICE_TIME_RULE } from '../../processing/errors';
import { sign } from '../../processing/signing';
import { invoiceDetails, moneyNews, serviceTime } from '../../processing/translate';
import type { Invoice } from '../../processing/wire';
import { KEYS, keySequence, startFakeService, type FakeService } from './fake-service';

const { minSeconds, maxSeconds } = SERVICE_TIME_RANGE;

/** Times no record may keep: before 2000, past the year 9999, past JavaScript's dates once in ms, or not seconds. */
const OUT_OF_RANGE: Array<[string, unknown]> = [
  ['0', 0],
  ['negative', -1],
  ['a second before 2000', minSeconds - 1],
  ['a second past the year 9999', maxSeconds + 1],
  ["past JavaScript's dates in ms", 8_640_000_000_001],
  ['8.64e15', 8.64e15],
  ['a fraction', 1_700_000_000.5],
  ['a string', '1700000000'],
  ['a boolean', true],
  ['an object', { seconds: 1_700_000_000 }],
];

test('the range is 2000-01-01T00:00:00Z to 9999-12-31T23:59:59Z, both ends kept', () => {
  expect(new Date(minSeconds * 1000).toISOString()).toBe('2000-01-01T00:00:00.000Z');
  expect(new Date(maxSeconds * 1000).toISOString()).toBe('9999-12-31T23:59:59.000Z');
  expect([minSeconds, maxSeconds, 1_700_000_000].every(isServiceTime)).toBe(true);
  expect(serviceTime(minSeconds, 'expires_at', 'callback')).toBe(minSeconds);
  expect(serviceTime(maxSeconds, 'expires_at', 'callback')).toBe(maxSeconds);
  expect(serviceTime(null, 'expires_at', 'callback')).toBeNull();
  expect(serviceTime(undefined, 'expires_at', 'callback')).toBeNull();
});

test.each(OUT_OF_RANGE)('%s is no time to keep', (_name, value) => {
  expect(isServiceTime(value)).toBe(false);
  expect(() => serviceTime(value, 'expires_at', 'getTransaction')).toThrow(ProcessingTimeRangeError);
});

describe("a lookup's or an answer's time out of range", () => {
  const INVOICE: Invoice = {
    id: 1,
    url: 'https://pay.example/1',
    foreign_id: 'inv-1',
    address: 'bc1qaddress',
    title: 'Order',
    status: 'pending',
    currency: 'EUR',
    amount: '25.50000000',
    sender_currency: 'BTC',
    sender_amount: '0.00046000',
    fixed_at: 1_700_000_000,
    release_at: 1_700_000_900,
    seconds_left: 900,
  };

  test.each(OUT_OF_RANGE)('moneyNews refuses an expires_at of %s, naming it', (_name, value) => {
    let thrown: unknown;
    try {
      moneyNews({ status: 'pending', expires_at: value } as never, 'getTransaction');
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ProcessingTimeRangeError);
    expect(thrown).toMatchObject({ field: 'expires_at', code: 'invalid_response' });
  });

  test('moneyNews keeps an expires_at within the range, and none for null', () => {
    expect(moneyNews({ expires_at: maxSeconds }, 'callback').expiresAt).toBe(maxSeconds);
    expect(moneyNews({ expires_at: null }, 'callback')).not.toHaveProperty('expiresAt');
  });

  test.each(['fixed_at', 'release_at'] as const)(
    "a create's answer with %s past the year 9999 is refused",
    (field) => {
      expect(() => invoiceDetails({ ...INVOICE, [field]: maxSeconds + 1 })).toThrow(
        expect.objectContaining({ field, operation: 'createInvoice' }),
      );
      expect(invoiceDetails({ ...INVOICE, fixed_at: null, release_at: null })).toMatchObject({
        fixedAt: null,
        releaseAt: null,
      });
    },
  );

  describe('through the adapter', () => {
    let service: FakeService;
    let client: ProcessingClient;
    beforeEach(async () => {
      service = await startFakeService();
      client = new ProcessingClient({ baseUrl: `${service.url}/merchant/`, keys: keySequence(KEYS) });
    });
    afterEach(async () => {
      await client.close();
      await service.close();
    });

    test('an invoice lookup with expires_at past the year 9999: a 502 processor_error, nothing to apply', async () => {
      service.replies({
        status: 200,
        body: {
          id: 1,
          foreign_id: 'inv-1',
          type: 'invoice',
          status: 'processing',
          error: '',
          transactions: [],
          fees: [],
          expires_at: maxSeconds + 1,
        },
      });

      const news = new ProcessingAdapter(client).invoiceNews(1);

      await expect(news).rejects.toBeInstanceOf(ServiceError);
      const error = await news.catch((thrown: unknown) => thrown);
      expect(toErrorResponse(error)).toMatchObject({ status: 502, code: 'processor_error' });
    });

    test("a create's answer with release_at past JavaScript's dates: a 502 processor_error", async () => {
      service.replies({ status: 200, body: { data: { ...INVOICE, release_at: 9_000_000_000_000 } } });

      const created = new ProcessingAdapter(client).createInvoice('inv-1', {
        foreignId: 'inv-1',
        title: 'Order',
        currency: 'EUR',
        amount: '25.50',
        email: 'buyer@example.com',
        urlSuccess: 'https://shop.example/ok',
        urlFailed: 'https://shop.example/failed',
        timer: true,
      });

      const error = await created.catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(ServiceError);
      expect(toErrorResponse(error)).toMatchObject({ status: 502, code: 'processor_error' });
    });
  });
});

describe("a signed callback's expires_at", () => {
  async function read(expiresAt: unknown) {
    const body = Buffer.from(
      JSON.stringify({ foreign_id: 'order-1', type: 'invoice', status: 'processing', expires_at: expiresAt }),
    );
    return verifyCallback(
      body,
      { 'x-processing-key': KEYS.apiKey, 'x-processing-signature': sign(KEYS.secretKey, body) },
      keySequence(KEYS),
    );
  }

  test.each(OUT_OF_RANGE)(
    '%s: refused as bad input naming expires_at, answered 400',
    async (_name, value) => {
      const error = await read(value).catch((thrown: unknown) => thrown);

      expect(error).toBeInstanceOf(InvalidFieldsError);
      expect(toErrorResponse(error)).toEqual({
        status: 400,
        code: 'invalid_request',
        message: 'Invalid fields: expires_at',
        fields: { expires_at: SERVICE_TIME_RULE },
      });
    },
  );

  test('within the range it is read; null or absent, there is none', async () => {
    await expect(read(maxSeconds)).resolves.toMatchObject({ kind: 'invoice', expiresAt: maxSeconds });
    await expect(read(null)).resolves.not.toHaveProperty('expiresAt');
    await expect(read(undefined)).resolves.not.toHaveProperty('expiresAt');
  });
});
