// Contract: the client against the local sandbox of the service, over real HTTP.
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { ProcessingClient, type ProcessingClientOptions } from '../../processing/client';
import { Decimal } from 'decimal.js';
import {
  ProcessingAuthError,
  ProcessingBadContentError,
  ProcessingConnectionError,
  ProcessingFeatureDisabledError,
  ProcessingInvalidStateError,
  ProcessingNotFoundError,
  ProcessingUpstreamError,
  ProcessingValidationError,
  errorFromResponse,
} from '../../processing/errors';
import type { CreateInvoiceRequest, WithdrawalRequest } from '../../processing/wire';
import { sign } from '../../processing/signing';
import { closedPortUrl, keySequence } from './fake-service';

let sandbox: Sandbox;
let client: ProcessingClient;
const extraClients: ProcessingClient[] = [];

function clientWith(options: Partial<ProcessingClientOptions>): ProcessingClient {
  const extra = new ProcessingClient({ baseUrl: sandbox.url, keys: sandboxKeys(), ...options });
  extraClients.push(extra);
  return extra;
}

const sandboxKeys = () => keySequence({ apiKey: sandbox.apiKey, secretKey: sandbox.secretKey });

async function control<T = unknown>(method: string, path: string, body?: object): Promise<T> {
  const response = await fetch(`${sandbox.url}/_sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`control ${method} ${path}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const requestsTo = async (path: string) =>
  (
    await control<{ requests: Array<{ method: string; status: number | null }> }>(
      'GET',
      `/requests?path=${path}`,
    )
  ).requests;

const balanceOf = async (currency: string) =>
  (await client.listBalances()).find((entry) => entry.currency === currency)!.balance;

const debited = (before: string, after: string) => new Decimal(before).minus(after).toFixed(8);

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0 });
  client = new ProcessingClient({ baseUrl: `${sandbox.url}/`, keys: sandboxKeys() });
});

beforeEach(() => control('POST', '/reset'));

afterEach(async () => {
  await Promise.all(extraClients.splice(0).map((extra) => extra.close()));
});

afterAll(async () => {
  await client.close();
  await sandbox.close();
});

const invoiceRequest = (foreign_id: string): CreateInvoiceRequest => ({
  foreign_id,
  timer: false,
  title: 'Order 42',
  currency: 'USDT',
  amount: '10.5',
  url_success: 'https://shop.example/ok',
  url_failed: 'https://shop.example/failed',
  email_user: 'buyer@example.com',
});

const withdrawalRequest = (foreign_id: string): WithdrawalRequest => ({
  foreign_id,
  sender_currency: 'USDT',
  received_currency: 'BTC',
  sender_amount: '25',
  address: 'bc1qsandboxaddress',
  end_user_reference: 'customer-7',
});

describe('the seven operations', () => {
  it('creates and cancels an invoice, even with an awkward foreign_id', async () => {
    const invoice = await client.createInvoice(invoiceRequest('order/42 ü'));
    expect(invoice).toMatchObject({
      foreign_id: 'order/42 ü',
      status: 'created',
      amount: '10.50000000',
      currency: 'USDT',
      address: null,
    });

    await client.cancelInvoice('order/42 ü');
    const shown = await control<{ status: string }>('GET', `/invoices/${encodeURIComponent('order/42 ü')}`);
    expect(shown.status).not.toBe('created');
  });

  it('lists balances, rates and pairs', async () => {
    const balances = await client.listBalances();
    expect(balances).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ currency: 'BTC', type: 'crypto', balance: expect.any(String) }),
      ]),
    );

    const query = { currency_from: 'BTC', currency_to: 'USDT' };
    const [rate] = await client.rates(query);
    const [pair] = await client.pairs(query);
    expect(rate.currency_from).toMatchObject({ currency: 'BTC', description: expect.any(String) });
    expect(typeof rate.rate_to).toBe('string');
    expect(pair.currency_from).not.toHaveProperty('description');
  });

  it('creates a withdrawal and looks it up by foreign_id and by id with exact amounts', async () => {
    const withdrawal = await client.createWithdrawal(withdrawalRequest('wd-1'));
    expect(withdrawal).toMatchObject({
      foreign_id: 'wd-1',
      type: 'withdrawal_instant_exchange',
      status: 'processing',
      sender_amount: '25.00000000',
    });

    const byForeignId = await client.getTransaction({ foreign_id: 'wd-1' });
    const byId = await client.getTransaction({ id: withdrawal.id });
    expect(byId).toEqual(byForeignId);
    expect(byForeignId.currency_sent).toEqual({ currency: 'USDT', amount: '25.00000000' });
    expect(byForeignId.currency_received?.amount).toBe(withdrawal.received_amount);
  });
});

describe('section 7 errors reach the caller typed', () => {
  it('validation: every failing field is named, and a duplicate foreign_id is recognised', async () => {
    await client.createInvoice(invoiceRequest('inv-dup'));

    const error = (await client
      .createInvoice({ ...invoiceRequest('inv-dup'), email_user: 'not-an-email', currency: 'NOPE' })
      .catch((e: unknown) => e)) as ProcessingValidationError;

    expect(error).toBeInstanceOf(ProcessingValidationError);
    expect(error.status).toBe(400);
    expect(Object.keys(error.fields)).toEqual(
      expect.arrayContaining(['foreign_id', 'email_user', 'currency']),
    );
    expect(error.isDuplicateForeignId).toBe(true);
  });

  it('feature disabled names invoices_enabled', async () => {
    await control('POST', '/features', { invoices_enabled: false });

    await expect(client.createInvoice(invoiceRequest('inv-off'))).rejects.toMatchObject({
      constructor: ProcessingFeatureDisabledError,
      status: 400,
      code: 'feature_disabled',
      feature: 'invoices_enabled',
    });
  });

  it('403 bad_header_key and bad_header_signature, and healing by refresh', async () => {
    const wrongKey = { apiKey: 'wrong', secretKey: sandbox.secretKey };
    const wrongSecret = { apiKey: sandbox.apiKey, secretKey: 'wrong' };

    await expect(clientWith({ keys: keySequence(wrongKey) }).listBalances()).rejects.toMatchObject({
      constructor: ProcessingAuthError,
      status: 403,
      code: 'bad_header_key',
    });
    await expect(clientWith({ keys: keySequence(wrongSecret) }).listBalances()).rejects.toMatchObject({
      code: 'bad_header_signature',
    });

    const rotated = keySequence(wrongKey, { apiKey: sandbox.apiKey, secretKey: sandbox.secretKey });
    await expect(clientWith({ keys: rotated }).listBalances()).resolves.toEqual(expect.any(Array));
    expect(rotated.refreshes).toBe(1);
  });

  it.each(['required_header_key', 'required_header_signature'])('403 %s', async (code) => {
    await control('POST', '/faults', { path: '/v2/accounts/list', kind: '403', code, times: 1 });

    await expect(client.listBalances()).rejects.toMatchObject({ constructor: ProcessingAuthError, code });
  });

  it('the bad_content_format answer (which the client never provokes) maps to ProcessingBadContentError', async () => {
    const body = '{"currency_from":"BTC"';
    const response = await fetch(`${sandbox.url}/v2/currencies/rates`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-processing-key': sandbox.apiKey,
        'x-processing-signature': sign(sandbox.secretKey, body),
      },
      body,
    });

    const error = errorFromResponse('rates', response.status, await response.text());
    expect(error).toBeInstanceOf(ProcessingBadContentError);
    expect(error).toMatchObject({ status: 400, code: 'bad_content_format' });
  });

  it('a cancel the state does not allow is ProcessingInvalidStateError', async () => {
    await client.createInvoice(invoiceRequest('inv-twice'));
    await client.cancelInvoice('inv-twice');

    await expect(client.cancelInvoice('inv-twice')).rejects.toMatchObject({
      constructor: ProcessingInvalidStateError,
      status: 400,
      code: 'invalid_invoice_state',
    });
  });

  it('unknown invoice or transaction is ProcessingNotFoundError', async () => {
    await expect(client.cancelInvoice('nope')).rejects.toThrow(ProcessingNotFoundError);
    await expect(client.getTransaction({ foreign_id: 'nope' })).rejects.toMatchObject({ status: 404 });
  });

  it('5xx: reads are retried, a cancel is not', async () => {
    await control('POST', '/faults', { path: '/v2/accounts/list', kind: '5xx', status: 503, times: 1 });
    await expect(client.listBalances()).resolves.toEqual(expect.any(Array));
    expect(await requestsTo('/v2/accounts/list')).toHaveLength(2);

    await control('POST', '/faults', { path: '/v2/invoices/*', kind: '5xx', times: 1 });
    await expect(client.cancelInvoice('inv-x')).rejects.toMatchObject({
      constructor: ProcessingUpstreamError,
      status: 503,
    });
    expect(await requestsTo('/v2/invoices/*')).toHaveLength(1);
  });
});

describe('exactly one withdrawal', () => {
  const path = '/v2/crypto/withdrawal_instant_exchange';

  it('adopts a withdrawal committed before the connection was reset', async () => {
    const before = await balanceOf('USDT');
    await control('POST', '/faults', { path, kind: 'reset_after_commit', times: 1 });

    const withdrawal = await client.createWithdrawal(withdrawalRequest('wd-reset'));

    expect(withdrawal).toMatchObject({
      foreign_id: 'wd-reset',
      sender_amount: '25.00000000',
      status: 'processing',
    });
    expect(await requestsTo(path)).toHaveLength(1);
    expect((await client.getTransaction({ foreign_id: 'wd-reset' })).id).toBe(withdrawal.id);
    expect(debited(before, await balanceOf('USDT'))).toBe('25.00000000');
  });

  it.each([
    ['a 5xx', { kind: '5xx', times: 1 }],
    ['a hang', { kind: 'hang', times: 1 }],
  ])('sends once more when %s left nothing behind', async (_case, fault) => {
    const before = await balanceOf('USDT');
    await control('POST', '/faults', { path, ...fault });

    const withdrawal = await clientWith({ headersTimeoutMs: 300 }).createWithdrawal(
      withdrawalRequest('wd-again'),
    );

    expect(withdrawal.foreign_id).toBe('wd-again');
    expect((await requestsTo(path)).map((request) => request.status)).toEqual([
      fault.kind === 'hang' ? null : 503,
      201,
    ]);
    expect(debited(before, await balanceOf('USDT'))).toBe('25.00000000');
  });

  it('answers a repeated create with the same withdrawal, debiting once', async () => {
    const before = await balanceOf('USDT');
    const first = await client.createWithdrawal(withdrawalRequest('wd-repeat'));
    const second = await client.createWithdrawal(withdrawalRequest('wd-repeat'));

    expect(second).toEqual(first);
    expect(debited(before, await balanceOf('USDT'))).toBe('25.00000000');
  });

  it('reports a connection that never opened without sending anything', async () => {
    const closed = clientWith({ baseUrl: await closedPortUrl(), maxRetries: 0 });
    await expect(closed.createWithdrawal(withdrawalRequest('wd-none'))).rejects.toMatchObject({
      constructor: ProcessingConnectionError,
      outcomeUnknown: false,
    });
    expect(await requestsTo(path)).toHaveLength(0);
  });
});
