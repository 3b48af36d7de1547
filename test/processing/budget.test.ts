// The time budget: inside an invocation no call to the service outlives its deadline.
import { toErrorResponse } from '../../http/errors';
import { ProcessingClient, type ProcessingClientOptions } from '../../processing/client';
import { ProcessingTimeoutError } from '../../processing/errors';
import { MIN_ATTEMPT_MS } from '../../processing/request-sender';
import type { WithdrawalRequest } from '../../processing/types';
import { runWithDeadline } from '../../runtime/deadline';
import { KEYS, keySequence, startFakeService, type FakeService } from './fake-service';

let service: FakeService;
const clients: ProcessingClient[] = [];

function clientFor(options: Partial<ProcessingClientOptions> = {}): ProcessingClient {
  const client = new ProcessingClient({ baseUrl: service.url, keys: keySequence(KEYS), ...options });
  clients.push(client);
  return client;
}

/** Runs `work` as an invocation with `ms` left before its deadline. */
function within<T>(ms: number, work: () => Promise<T>): Promise<T> {
  return runWithDeadline(Date.now() + ms, work);
}

beforeEach(async () => {
  service = await startFakeService();
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await service.close();
});

const INVOICE = {
  foreign_id: 'inv-1',
  timer: false,
  title: 't',
  currency: 'USDT',
  amount: '1',
  url_success: 'https://a.example',
  url_failed: 'https://a.example',
  email_user: 'a@example.com',
};

const WITHDRAWAL: WithdrawalRequest = {
  foreign_id: 'wd-1',
  sender_currency: 'USDT',
  received_currency: 'BTC',
  sender_amount: '25',
  address: 'bc1qexample',
};

const paths = () => service.received.map((request) => `${request.method} ${request.url.split('?')[0]}`);

/** A service that never answers, against a client that would wait far longer than any test. */
const PATIENT = { headersTimeoutMs: 600_000 };

it('outside any invocation the configured timeout applies, and a timeout is its own kind of error', async () => {
  service.replies('hang');

  const error = await clientFor({ headersTimeoutMs: 200, maxRetries: 0 })
    .listBalances()
    .catch((e: unknown) => e);

  expect(error).toBeInstanceOf(ProcessingTimeoutError);
  expect(error).toMatchObject({ code: 'headers_timeout', outcomeUnknown: true });
});

it('cuts an attempt at the deadline whatever its own timeout; a create cut so has an unknown outcome', async () => {
  service.replies('hang');

  const error = await within(MIN_ATTEMPT_MS + 500, () => clientFor(PATIENT).createInvoice(INVOICE)).catch(
    (e: unknown) => e,
  );

  expect(error).toBeInstanceOf(ProcessingTimeoutError);
  expect(error).toMatchObject({
    code: 'deadline_exceeded',
    outcomeUnknown: true,
    operation: 'createInvoice',
  });
  expect(toErrorResponse(error)).toMatchObject({ status: 504, code: 'processor_timeout' });
  expect(paths()).toEqual(['POST /v2/invoices/create']);
});

it('sends nothing with too little time left, and says so with a 504 that is safe to retry', async () => {
  const error = await within(MIN_ATTEMPT_MS / 2, () => clientFor().listBalances()).catch((e: unknown) => e);

  expect(error).toBeInstanceOf(ProcessingTimeoutError);
  expect(error).toMatchObject({ code: 'deadline_exceeded', outcomeUnknown: false });
  expect(toErrorResponse(error)).toMatchObject({ status: 504, code: 'processor_timeout' });
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
    clientFor(PATIENT).createWithdrawal(WITHDRAWAL),
  ).catch((e: unknown) => e);

  // The withdrawal may exist: its unknown outcome is what the caller learns, and a retry looks it up.
  expect(error).toMatchObject({
    code: 'deadline_exceeded',
    outcomeUnknown: true,
    operation: 'createWithdrawal',
  });
  expect(paths()).toEqual(['POST /v2/crypto/withdrawal_instant_exchange']);
});
