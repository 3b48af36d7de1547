// Timeouts, retries, key healing, the at-most-once withdrawal and the invocation's time budget, against a local
// HTTP server.
import { toErrorResponse } from '../../http/errors';
import { ProcessingClient, type ProcessingClientOptions } from '../../processing/client';
import {
  ProcessingAuthError,
  ProcessingConnectionError,
  ProcessingTimeoutError,
  ProcessingUpstreamError,
  ProcessingValidationError,
} from '../../processing/errors';
import { MIN_ATTEMPT_MS } from '../../processing/request-sender';
import { toServiceError } from '../../processing/translate';
import type { CreateInvoiceRequest, WithdrawalRequest } from '../../processing/wire';
import { deadlineAt, runWithDeadline } from '../../runtime/deadline';
import {
  KEYS,
  NEW_KEYS,
  WITHDRAWAL,
  closedPortUrl,
  hmacHex,
  keySequence,
  startFakeService,
  type FakeService,
  type Reply,
} from './fake-service';

let service: FakeService;
const clients: ProcessingClient[] = [];

/** Wired to the invocation's deadline as runtime/processing.ts wires it. */
function clientFor(options: Partial<ProcessingClientOptions> = {}): ProcessingClient {
  const client = new ProcessingClient({
    baseUrl: service.url,
    keys: keySequence(KEYS),
    deadline: deadlineAt,
    ...options,
  });
  clients.push(client);
  return client;
}

beforeEach(async () => {
  service = await startFakeService();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await service.close();
});

const SERVER_ERROR: Reply = { status: 500, body: { error: 'boom' } };
const BALANCES: Reply = {
  status: 200,
  body: { data: [{ currency: 'BTC', type: 'crypto', balance: '1.00000000' }] },
};

const INVOICE_REQUEST: CreateInvoiceRequest = {
  foreign_id: 'inv-1',
  timer: false,
  title: 't',
  currency: 'USDT',
  amount: '1',
  url_success: 'https://a.example',
  url_failed: 'https://a.example',
  email_user: 'a@example.com',
};

const WITHDRAWAL_REQUEST: WithdrawalRequest = {
  foreign_id: 'wd-1',
  sender_currency: 'USDT',
  received_currency: 'BTC',
  sender_amount: '25',
  address: 'bc1qexample',
  end_user_reference: 'customer-7',
};

const RECORD =
  '{"id":9,"foreign_id":"wd-1","type":"withrawal_exchange","status":"processing","error":"",' +
  '"crypto_address":{"id":4,"currency":"BTC","address":"bc1qexample","tag":null},' +
  '"currency_sent":{"currency":"USDT","amount":25},"currency_received":{"currency":"BTC","amount":0.00038},' +
  '"transactions":[],"fees":[]}';

const paths = () => service.received.map((request) => `${request.method} ${request.url.split('?')[0]}`);

describe('connection failures', () => {
  it('reports a headers timeout as outcome unknown', async () => {
    service.replies('hang');
    const client = clientFor({ headersTimeoutMs: 200, maxRetries: 0 });

    const error = await client.cancelInvoice('inv-1').catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProcessingConnectionError);
    expect(error).toMatchObject({
      outcomeUnknown: true,
      code: 'headers_timeout',
      operation: 'cancelInvoice',
    });
    // Outside any invocation there is no deadline: the configured timeout is what ended it.
    expect(error).toBeInstanceOf(ProcessingTimeoutError);
  });

  it('ends a phase that must end sooner than the one before at its own timeout', async () => {
    service.replies('hang');
    // Connecting is allowed a minute: the headers' 200 ms must not wait for that.
    const client = clientFor({ connectTimeoutMs: 60_000, headersTimeoutMs: 200, maxRetries: 0 });

    const error = await client.cancelInvoice('inv-1').catch((e: unknown) => e);

    expect(error).toMatchObject({ constructor: ProcessingTimeoutError, code: 'headers_timeout' });
    // Waiting out the minute for connecting fails the test, however busy the machine.
  }, 20_000);

  it('reports a body that stops coming as a body timeout, outcome unknown', async () => {
    service.replies({ status: 200, stallAfter: '{"data":' });
    const client = clientFor({
      connectTimeoutMs: 60_000,
      headersTimeoutMs: 60_000,
      bodyTimeoutMs: 200,
      maxRetries: 0,
    });

    const error = await client.cancelInvoice('inv-1').catch((e: unknown) => e);

    expect(error).toMatchObject({
      constructor: ProcessingTimeoutError,
      code: 'body_timeout',
      outcomeUnknown: true,
    });
    // Waiting out a minute fails the test, however busy the machine.
  }, 20_000);

  it('ends a request still waiting for a connection at its connect timeout, as never sent', async () => {
    service.replies('hang');
    const client = clientFor({
      connections: 1,
      connectTimeoutMs: 200,
      headersTimeoutMs: 60_000,
      maxRetries: 0,
    });
    const holding = client.cancelInvoice('inv-1').catch((e: unknown) => e);

    const error = await client.cancelInvoice('inv-2').catch((e: unknown) => e);

    // The agent's one connection is busy with the first: the second never had one.
    expect(error).toMatchObject({
      constructor: ProcessingTimeoutError,
      code: 'connect_timeout',
      outcomeUnknown: false,
    });
    await service.close();
    await holding;
  }, 20_000);

  it('reports a reset after the request was read as outcome unknown', async () => {
    service.replies('reset');
    const error = await clientFor({ maxRetries: 0 })
      .cancelInvoice('inv-1')
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ constructor: ProcessingConnectionError, outcomeUnknown: true });
  });

  it('reports a refused connection as never sent, and retries even a create then', async () => {
    const keys = keySequence(KEYS);
    const client = new ProcessingClient({ baseUrl: await closedPortUrl(), keys, maxRetries: 2 });
    clients.push(client);

    const error = await client.createWithdrawal(WITHDRAWAL_REQUEST).catch((e: unknown) => e);

    expect(error).toMatchObject({
      constructor: ProcessingConnectionError,
      outcomeUnknown: false,
      code: 'ECONNREFUSED',
    });
    // Every attempt signs with the keys it reads first: three attempts, all refused.
    expect(keys.reads).toBe(3);
  });
});

describe('retries', () => {
  it('retries reads on 5xx and connection errors', async () => {
    service.replies(SERVER_ERROR, 'reset', BALANCES);

    await expect(clientFor().listBalances()).resolves.toHaveLength(1);
    expect(service.received).toHaveLength(3);
  });

  it('gives up on reads after maxRetries', async () => {
    service.replies(SERVER_ERROR);

    await expect(
      clientFor({ maxRetries: 1 }).rates({ currency_from: 'BTC', currency_to: 'USDT' }),
    ).rejects.toThrow(ProcessingUpstreamError);
    expect(service.received).toHaveLength(2);
  });

  it('never re-sends an invoice or a cancel after a 5xx or an unknown outcome', async () => {
    const client = clientFor();
    const invoice = INVOICE_REQUEST;

    service.replies(SERVER_ERROR);
    await expect(client.createInvoice(invoice)).rejects.toThrow(ProcessingUpstreamError);
    service.replies('reset');
    await expect(client.createInvoice(invoice)).rejects.toMatchObject({ outcomeUnknown: true });
    service.replies(SERVER_ERROR);
    await expect(client.cancelInvoice('inv-1')).rejects.toThrow(ProcessingUpstreamError);

    expect(service.received).toHaveLength(3);
  });
});

describe('key healing', () => {
  it('refreshes keys once on bad_header_key and re-sends signed with the new secret', async () => {
    const keys = keySequence(KEYS, NEW_KEYS);
    service.replies({ status: 403, body: { error: 'Bad key', code: 'bad_header_key' } }, BALANCES);

    await expect(clientFor({ keys }).listBalances()).resolves.toHaveLength(1);

    expect(keys.refreshes).toBe(1);
    const [first, second] = service.received;
    expect(first.headers['x-processing-key']).toBe(KEYS.apiKey);
    expect(second.headers['x-processing-key']).toBe(NEW_KEYS.apiKey);
    expect(second.headers['x-processing-signature']).toBe(hmacHex(NEW_KEYS.secretKey, second.body));
  });

  it('refreshes only once when the new key is refused too, and not for other 403s', async () => {
    const keys = keySequence(KEYS, NEW_KEYS);
    service.replies({ status: 403, body: { error: 'Bad signature', code: 'bad_header_signature' } });
    await expect(clientFor({ keys }).listBalances()).rejects.toMatchObject({ code: 'bad_header_signature' });
    expect(keys.refreshes).toBe(1);
    expect(service.received).toHaveLength(2);

    service.replies({ status: 403, body: { error: 'Missing key', code: 'required_header_key' } });
    await expect(clientFor({ keys }).listBalances()).rejects.toThrow(ProcessingAuthError);
    expect(keys.refreshes).toBe(1);
  });
});

describe('withdrawal at most once', () => {
  it.each<[string, Reply]>([
    ['a reset after sending', 'reset'],
    ['a 5xx', SERVER_ERROR],
    [
      'a duplicate foreign_id',
      { status: 400, body: { errors: { foreign_id: 'The foreign id has already been taken.' } } },
    ],
  ])('recovers the withdrawal by lookup after %s', async (_case, firstReply) => {
    service.replies(firstReply, { status: 200, body: RECORD });

    const withdrawal = await clientFor().createWithdrawal(WITHDRAWAL_REQUEST);

    expect(withdrawal).toEqual({
      ...WITHDRAWAL,
      received_amount: '0.00038000',
      end_user_reference: 'customer-7',
    });
    expect(paths()).toEqual(['POST /v2/crypto/withdrawal_instant_exchange', 'GET /v2/transactions/info']);
    expect(service.received[1].url).toBe('/v2/transactions/info?foreign_id=wd-1');
  });

  it('sends once more when the lookup says the withdrawal does not exist', async () => {
    service.replies(
      'reset',
      { status: 404, body: { error: 'Not found' } },
      { status: 201, body: { data: WITHDRAWAL } },
    );

    await expect(clientFor().createWithdrawal(WITHDRAWAL_REQUEST)).resolves.toEqual(WITHDRAWAL);
    expect(paths()).toEqual([
      'POST /v2/crypto/withdrawal_instant_exchange',
      'GET /v2/transactions/info',
      'POST /v2/crypto/withdrawal_instant_exchange',
    ]);
  });

  it('rethrows the first error when the lookup fails otherwise', async () => {
    service.replies('reset', SERVER_ERROR);

    const error = await clientFor({ maxRetries: 0 })
      .createWithdrawal(WITHDRAWAL_REQUEST)
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ constructor: ProcessingConnectionError, outcomeUnknown: true });
    expect(paths()).toEqual(['POST /v2/crypto/withdrawal_instant_exchange', 'GET /v2/transactions/info']);
  });

  it.each([
    ['amount', RECORD.replace('"amount":25', '"amount":26')],
    ['address', RECORD.replace('"address":"bc1qexample"', '"address":"bc1qsomeoneelse"')],
  ])('does not pass off a withdrawal with another %s under the same foreign_id', async (_field, other) => {
    const duplicate: Reply = {
      status: 400,
      body: { errors: { foreign_id: 'The foreign id has already been taken.' } },
    };
    service.replies(duplicate, { status: 200, body: other });

    const error = await clientFor()
      .createWithdrawal(WITHDRAWAL_REQUEST)
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProcessingValidationError);
    expect(service.received).toHaveLength(2);
  });

  it('does not look up after a plain validation error', async () => {
    service.replies({ status: 400, body: { errors: { address: 'The address is invalid.' } } });

    await expect(clientFor().createWithdrawal(WITHDRAWAL_REQUEST)).rejects.toThrow(ProcessingValidationError);
    expect(service.received).toHaveLength(1);
  });
});

describe('inside an invocation: the time budget', () => {
  /** Runs `work` as an invocation with `ms` left before its deadline. */
  function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
    return runWithDeadline(Date.now() + ms, work);
  }

  /** A service that never answers, against a client that would wait far longer than any test. */
  const PATIENT = { headersTimeoutMs: 600_000 };

  it('cuts an attempt at the deadline whatever its own timeout; a create cut so has an unknown outcome', async () => {
    service.replies('hang');

    const error = await within(MIN_ATTEMPT_MS + 500, () =>
      clientFor(PATIENT).createInvoice(INVOICE_REQUEST),
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProcessingTimeoutError);
    expect(error).toMatchObject({
      code: 'deadline_exceeded',
      outcomeUnknown: true,
      operation: 'createInvoice',
    });
    expect(toErrorResponse(toServiceError(error))).toMatchObject({ status: 504, code: 'processor_timeout' });
    expect(paths()).toEqual(['POST /v2/invoices/create']);
  });

  it('sends nothing with too little time left, and says so with a 504 that is safe to retry', async () => {
    const error = await within(MIN_ATTEMPT_MS / 2, () => clientFor().listBalances()).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProcessingTimeoutError);
    expect(error).toMatchObject({ code: 'deadline_exceeded', outcomeUnknown: false });
    expect(toErrorResponse(toServiceError(error))).toMatchObject({ status: 504, code: 'processor_timeout' });
    expect(service.received).toHaveLength(0);
  });

  it('sends nothing when reading the keys took the time an attempt needs', async () => {
    const slowKeys = {
      get: () => new Promise<typeof KEYS>((resolve) => setTimeout(() => resolve(KEYS), 500)),
      refresh: async () => KEYS,
    };
    const error = await within(MIN_ATTEMPT_MS + 300, () =>
      clientFor({ keys: slowKeys }).createInvoice(INVOICE_REQUEST),
    ).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'deadline_exceeded', outcomeUnknown: false });
    expect(service.received).toHaveLength(0);
  });

  it('starts no retry of a read without time left for it to be answered', async () => {
    service.replies('hang');
    // The first attempt times out on its own; what is left then is less than an attempt needs.
    const client = clientFor({ headersTimeoutMs: MIN_ATTEMPT_MS, maxRetries: 2 });

    const error = await within(MIN_ATTEMPT_MS * 1.9, () =>
      client.rates({ currency_from: 'BTC', currency_to: 'EUR' }),
    ).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ProcessingTimeoutError);
    expect(error).toMatchObject({ outcomeUnknown: true });
    expect(service.received).toHaveLength(1);
  });

  it('retries a read while there is time, each attempt within the deadline', async () => {
    service.replies('hang', 'hang', { status: 200, body: { data: [] } });
    const client = clientFor({ headersTimeoutMs: 200, maxRetries: 2 });

    await expect(within(60_000, () => client.listBalances())).resolves.toEqual([]);
    expect(service.received).toHaveLength(3);
  });

  it('budgets the lookup after a lost withdrawal answer too: without time it is not sent', async () => {
    service.replies('hang');

    const error = await within(MIN_ATTEMPT_MS + 500, () =>
      clientFor(PATIENT).createWithdrawal(WITHDRAWAL_REQUEST),
    ).catch((e: unknown) => e);

    // The withdrawal may exist: its unknown outcome is what the caller learns, and a retry looks it up.
    expect(error).toMatchObject({
      code: 'deadline_exceeded',
      outcomeUnknown: true,
      operation: 'createWithdrawal',
    });
    expect(paths()).toEqual(['POST /v2/crypto/withdrawal_instant_exchange']);
  });
});
