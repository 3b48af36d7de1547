// The client's errors as the domain knows them and what the API then answers; the payment and settlement read.
import { ServiceError } from '../../domain/errors';
import { toErrorResponse } from '../../http/errors';
import {
  ProcessingConnectionError,
  ProcessingInvalidStateError,
  ProcessingTimeoutError,
  ProcessingValidationError,
  errorFromResponse,
} from '../../processing/errors';
import {
  errorText,
  paymentOf,
  boundedText,
  confirmationsOf,
  CURRENCY_MAX_BYTES,
  MAX_FEE_CURRENCIES,
  SERVICE_TEXT_MAX_BYTES,
  settlementOf,
  toServiceError,
} from '../../processing/translate';

const answered = (status: number, body: object) =>
  toServiceError(errorFromResponse('createInvoice', status, JSON.stringify(body)));

const connection = (outcomeUnknown: boolean) =>
  new ProcessingConnectionError({
    operation: 'op',
    code: 'ECONNRESET',
    message: 'op: reset',
    outcomeUnknown,
  });
const timeout = (outcomeUnknown: boolean) =>
  new ProcessingTimeoutError({
    operation: 'op',
    code: 'deadline_exceeded',
    message: 'op: late',
    outcomeUnknown,
  });

describe('toServiceError', () => {
  test.each([
    [
      'a field refused',
      answered(400, { errors: { email_user: 'The email is invalid.' } }),
      'refused',
      { status: 422, code: 'rejected_by_processor', fields: { email: 'The email is invalid.' } },
    ],
    [
      'a foreign_id taken',
      answered(400, { errors: { foreign_id: 'The foreign id has already been taken.' } }),
      'duplicate_foreign_id',
      { status: 409, code: 'duplicate_foreign_id' },
    ],
    [
      'an unreadable request',
      answered(400, { code: 'bad_content_format', message: 'bad' }),
      'unreadable_request',
      { status: 502, code: 'processor_error', message: 'The payment service answered unexpectedly' },
    ],
    [
      'a feature disabled',
      answered(400, { message: 'withdrawals_enabled is off for this account' }),
      'feature_disabled',
      {
        status: 503,
        code: 'feature_disabled',
        message: 'The merchant account does not have withdrawals_enabled enabled',
      },
    ],
    [
      'an invalid state',
      answered(400, { code: 'invalid_invoice_state' }),
      'invalid_state',
      { status: 409, code: 'invalid_state' },
    ],
    ['no such record', answered(404, {}), 'not_found', { status: 404, code: 'not_found' }],
    [
      'our keys refused',
      answered(403, { code: 'bad_header_key' }),
      'rejected_credentials',
      { status: 502, code: 'processor_auth_failed' },
    ],
    [
      'a server error',
      answered(502, {}),
      'failed',
      { status: 502, code: 'processor_error', message: 'The payment service failed to answer properly' },
    ],
    [
      'a connection never made',
      toServiceError(connection(false)),
      'unreachable',
      { status: 502, code: 'processor_unreachable' },
    ],
    [
      'a connection lost after sending',
      toServiceError(connection(true)),
      'connection_lost',
      { status: 504, code: 'processor_timeout' },
    ],
    [
      'a timeout after sending',
      toServiceError(timeout(true)),
      'timeout',
      { status: 504, code: 'processor_timeout' },
    ],
    [
      'a timeout before sending',
      toServiceError(timeout(false)),
      'timeout',
      { status: 504, code: 'processor_timeout' },
    ],
  ])('%s', (_name, error, failure, response) => {
    expect(error).toBeInstanceOf(ServiceError);
    expect(error).toMatchObject({ failure });
    expect(toErrorResponse(error)).toMatchObject(response);
  });

  test('keeps the message, the code and whether the outcome is unknown, and the cause', () => {
    const cause = timeout(true);
    expect(toServiceError(cause)).toMatchObject({
      message: 'op: late',
      code: 'deadline_exceeded',
      outcomeUnknown: true,
      cause,
    });
    expect(toServiceError(connection(false))).toMatchObject({ outcomeUnknown: false });
    expect(
      toServiceError(
        new ProcessingValidationError({ operation: 'op', code: 'invalid_request', message: 'm', fields: {} }),
      ),
    ).toMatchObject({ outcomeUnknown: false, fields: {} });
  });

  test('passes any other error on as it is', () => {
    const error = new TypeError('a bug');
    expect(toServiceError(error)).toBe(error);
  });
});

describe('paymentOf', () => {
  test('reads currency_sent, without what is not a plain decimal', () => {
    expect(paymentOf({ currency: 'BTC', amount: '0.1', remaining_amount: '0.2' })).toEqual({
      currency: 'BTC',
      amount: '0.1',
      remainingAmount: '0.2',
    });
    expect(paymentOf({ currency: 'BTC', amount: '0.1', remaining_amount: 2 })).toEqual({
      currency: 'BTC',
      amount: '0.1',
      remainingAmount: undefined,
    });
  });

  test.each([
    ['nothing', undefined],
    ['no currency', { amount: '1' }],
    ['a number amount', { currency: 'BTC', amount: 1 }],
    ['a negative amount', { currency: 'BTC', amount: '-1' }],
    ['an exponent', { currency: 'BTC', amount: '1e3' }],
  ])('%s: no payment', (_name, sent) => {
    expect(paymentOf(sent)).toBeUndefined();
  });
});

test('a settlement sums the fees per currency and keeps the net as credited', () => {
  const fees = [
    { type: 'fee_crypto_deposit', currency: 'EUR', amount: '0.25' },
    { type: 'fee_exchange', currency: 'EUR', amount: '0.005' },
    { type: 'fee_network', currency: 'BTC', amount: '0.00001' },
    { type: 'unreadable', currency: 'EUR', amount: 'NaN' },
  ];
  expect(settlementOf({ currency: 'EUR', amount: '25.245' }, fees)).toEqual({
    currency: 'EUR',
    net: '25.24500000',
    fees: [
      { currency: 'BTC', amount: '0.00001000' },
      { currency: 'EUR', amount: '0.25500000' },
    ],
  });
  expect(settlementOf(null, fees)).toBeUndefined();
  expect(settlementOf({ currency: 'EUR', amount: '1' }, 'not a list')).toEqual({
    currency: 'EUR',
    net: '1.00000000',
    fees: [],
  });
});

test("the service's texts are stored bounded: a signed 1 MB error cannot push a record past the item limit", () => {
  const huge = 'x'.repeat(1_000_000);
  expect(Buffer.byteLength(errorText(huge)!)).toBeLessThanOrEqual(SERVICE_TEXT_MAX_BYTES);
  expect(errorText(huge)).toMatch(/^x+…$/);
  expect(errorText('Timer expired. User not paid.')).toBe('Timer expired. User not paid.');
  const refused = new ProcessingInvalidStateError({
    operation: 'cancelInvoice',
    code: 'invalid_state',
    message: 'cancelInvoice: refused (HTTP 400)',
    rawBody: JSON.stringify({ error: huge }),
  });
  expect(Buffer.byteLength((toServiceError(refused) as ServiceError).reason!)).toBeLessThanOrEqual(
    SERVICE_TEXT_MAX_BYTES,
  );
});

test('texts are bounded in UTF-8 bytes and cut between whole characters, 4-byte ones too', () => {
  const emoji = '\u{1F4B0}'.repeat(5_000);
  const cut = boundedText(emoji, CURRENCY_MAX_BYTES);
  expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(CURRENCY_MAX_BYTES);
  expect(cut).toBe(`${'\u{1F4B0}'.repeat(15)}…`);
  expect(boundedText('é'.repeat(32), CURRENCY_MAX_BYTES)).toBe('é'.repeat(32));
  expect(boundedText('é'.repeat(33), CURRENCY_MAX_BYTES)).toBe(`${'é'.repeat(30)}…`);
  expect(boundedText('BTC', CURRENCY_MAX_BYTES)).toBe('BTC');
});

test('a payment and a settlement keep bounded currencies and a bounded fee list, with every amount', () => {
  const long = '\u{1F4B0}'.repeat(5_000);
  expect(paymentOf({ currency: long, amount: '1.5' })).toEqual({
    currency: `${'\u{1F4B0}'.repeat(15)}…`,
    amount: '1.5',
    remainingAmount: undefined,
  });
  const fees = Array.from({ length: 4_000 }, (_, index) => ({
    type: 'x'.repeat(1_000),
    currency: `C${String(index % 100).padStart(3, '0')}`,
    amount: '0.01',
  }));
  const settlement = settlementOf({ currency: long, amount: '25.245' }, fees)!;
  expect(settlement.net).toBe('25.24500000');
  expect(Buffer.byteLength(settlement.currency)).toBeLessThanOrEqual(CURRENCY_MAX_BYTES);
  expect(settlement.fees).toHaveLength(MAX_FEE_CURRENCIES);
  expect(settlement.fees[0]).toEqual({ currency: 'C000', amount: '0.40000000' });
});

test('fees of an 18-decimal token add up to every digit, not rounded to 20 significant digits', () => {
  const fees = [
    { currency: 'ETH', amount: '1000.123456789012345678' },
    { currency: 'ETH', amount: '0.000000000000000001' },
  ];
  expect(settlementOf({ currency: 'ETH', amount: '99999999999.999999999999999999' }, fees)).toEqual({
    currency: 'ETH',
    net: '99999999999.999999999999999999',
    fees: [{ currency: 'ETH', amount: '1000.123456789012345679' }],
  });
});

test('an amount written as a string is read only as long as one written as a number may be', () => {
  const long = `${'9'.repeat(41)}.5`;
  expect(settlementOf({ currency: 'ETH', amount: long }, [])).toBeUndefined();
  expect(
    settlementOf({ currency: 'ETH', amount: '1' }, [{ currency: 'ETH', amount: `0.${'1'.repeat(41)}` }]),
  ).toEqual({ currency: 'ETH', net: '1.00000000', fees: [] });
});

describe("the confirmations a callback's or lookup's transactions report", () => {
  test('the fewest among the deposits: the one the order still waits on', () => {
    expect(confirmationsOf([{ confirmations: 3 }, { confirmations: 1 }])).toBe(1);
    expect(confirmationsOf([{ id: 1, confirmations: 0 }])).toBe(0);
  });

  test('none without a readable count: no list, no counts, or counts that are not whole and at least 0', () => {
    expect(confirmationsOf(undefined)).toBeUndefined();
    expect(confirmationsOf([])).toBeUndefined();
    expect(confirmationsOf([{ id: 1 }, null, { confirmations: -1 }, { confirmations: 1.5 }])).toBeUndefined();
    expect(confirmationsOf([{ confirmations: '2' }, { confirmations: 4 }])).toBe(4);
  });
});
