// The client's wire format against a local HTTP server: paths, bodies, signatures, amounts.
import { ProcessingClient } from '../../processing/client';
import { ProcessingValidationError } from '../../processing/errors';
import {
  KEYS,
  NEW_KEYS,
  WITHDRAWAL,
  hmacHex,
  keySequence,
  startFakeService,
  type FakeService,
} from './fake-service';

const INVOICE_REQUEST = {
  foreign_id: 'inv-1',
  timer: false,
  title: 'Café ☕ order',
  currency: 'USDT',
  amount: '10.5',
  url_success: 'https://shop.example/ok',
  url_failed: 'https://shop.example/fail',
  email_user: 'buyer@example.com',
};

const INVOICE = {
  id: 1,
  url: 'https://pay.example/1',
  foreign_id: 'inv-1',
  address: null,
  title: 'Café ☕ order',
  status: 'created',
  currency: 'USDT',
  amount: '10.50000000',
  sender_currency: null,
  sender_amount: null,
  fixed_at: null,
  release_at: null,
  seconds_left: null,
};

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

function only() {
  expect(service.received).toHaveLength(1);
  return service.received[0];
}

describe('ProcessingClient wire format', () => {
  it('signs exactly the bytes it sends, under the base path prefix', async () => {
    service.replies({ status: 201, body: { data: INVOICE } });

    await expect(client.createInvoice(INVOICE_REQUEST)).resolves.toEqual(INVOICE);

    const request = only();
    expect(request.method).toBe('POST');
    expect(request.url).toBe('/merchant/v2/invoices/create');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-processing-key']).toBe(KEYS.apiKey);
    expect(request.headers['x-processing-signature']).toBe(hmacHex(KEYS.secretKey, request.body));
    expect(JSON.parse(request.body.toString('utf8'))).toEqual({ ...INVOICE_REQUEST, amount: '10.50000000' });
  });

  it('sends and signs {} for operations without parameters', async () => {
    const balances = [{ currency: 'BTC', type: 'crypto', balance: '0.50000000' }];
    service.replies({ status: 200, body: { data: balances } });

    await expect(client.listBalances()).resolves.toEqual(balances);

    const request = only();
    expect(request.url).toBe('/merchant/v2/accounts/list');
    expect(request.body.toString()).toBe('{}');
    expect(request.headers['x-processing-signature']).toBe(hmacHex(KEYS.secretKey, Buffer.from('{}')));
  });

  it('cancels with the foreign_id URL-encoded, a trailing slash and a signed {}', async () => {
    service.replies({ status: 200, body: '' });

    await expect(client.cancelInvoice('a/b c')).resolves.toBeUndefined();

    const request = only();
    expect(request.url).toBe('/merchant/v2/invoices/a%2Fb%20c/cancel/');
    expect(request.body.toString()).toBe('{}');
    expect(request.headers['x-processing-signature']).toBe(hmacHex(KEYS.secretKey, Buffer.from('{}')));
  });

  it.each([
    [{ id: 123 }, '/merchant/v2/transactions/info?id=123', '{"id":123}'],
    [
      { foreign_id: 'wd 1/x' },
      '/merchant/v2/transactions/info?foreign_id=wd+1%2Fx',
      '{"foreign_id":"wd 1/x"}',
    ],
  ])('looks up %p with GET, query and signed body', async (query, url, body) => {
    service.replies({ status: 200, body: '{"id":123,"foreign_id":"wd","transactions":[],"fees":[]}' });

    await client.getTransaction(query);

    const request = only();
    expect(request.method).toBe('GET');
    expect(request.url).toBe(url);
    expect(request.body.toString()).toBe(body);
    expect(request.headers['x-processing-signature']).toBe(hmacHex(KEYS.secretKey, request.body));
  });

  it('keeps every digit of numeric amounts in the transaction record', async () => {
    service.replies({
      status: 200,
      body:
        '{"id":5,"foreign_id":"wd-1","type":"withrawal_exchange","status":"processing","error":"",' +
        '"currency_sent":{"currency":"BTC","amount":0.12345678901234567890},' +
        '"currency_received":{"currency":"USDT","amount":7000.1},' +
        '"transactions":[{"id":1,"amount":0.1,"confirmations":2}],"fees":[{"type":"mining","currency":"BTC","amount":0.0001}]}',
    });

    const record = await client.getTransaction({ id: 5 });

    expect(record.currency_sent).toEqual({ currency: 'BTC', amount: '0.12345678901234567890' });
    expect(record.currency_received?.amount).toBe('7000.10000000');
    expect(record.transactions[0]).toMatchObject({ id: 1, amount: '0.10000000', confirmations: 2 });
    expect(record.fees[0].amount).toBe('0.00010000');
  });

  it('sends rates and pairs queries with both currencies', async () => {
    const entry = {
      currency_from: {
        currency: 'BTC',
        type: 'crypto',
        min_amount: '0.00010000',
        min_amount_deposit_with_exchange: '0.001',
      },
      currency_to: { currency: 'USDT', type: 'crypto' },
      rate_from: '1',
      rate_to: '65000.12000000',
    };
    service.replies({ status: 200, body: { data: [entry] } });

    await expect(client.rates({ currency_from: 'BTC', currency_to: 'USDT' })).resolves.toEqual([entry]);
    await expect(client.pairs({ currency_from: 'BTC', currency_to: 'USDT' })).resolves.toEqual([entry]);

    expect(service.received.map((r) => [r.url, r.body.toString()])).toEqual([
      ['/merchant/v2/currencies/rates', '{"currency_from":"BTC","currency_to":"USDT"}'],
      ['/merchant/v2/currencies/pairs', '{"currency_from":"BTC","currency_to":"USDT"}'],
    ]);
  });

  it('sends the withdrawal amount as a normalised decimal string', async () => {
    service.replies({ status: 201, body: { data: WITHDRAWAL } });

    await expect(
      client.createWithdrawal({
        foreign_id: 'wd-1',
        sender_currency: 'USDT',
        received_currency: 'BTC',
        sender_amount: '25',
        address: 'bc1qexample',
      }),
    ).resolves.toEqual(WITHDRAWAL);

    expect(only().body.toString()).toBe(
      '{"foreign_id":"wd-1","sender_currency":"USDT","received_currency":"BTC","sender_amount":"25.00000000","address":"bc1qexample"}',
    );
  });

  it.each(['-1', '1e3', 'NaN', '0', '0.000000001'])('refuses amount %s before sending', async (amount) => {
    await expect(client.createInvoice({ ...INVOICE_REQUEST, amount })).rejects.toMatchObject({
      constructor: ProcessingValidationError,
      fields: { amount: expect.any(String) },
    });
    await expect(
      client.createWithdrawal({
        foreign_id: 'wd-1',
        sender_currency: 'USDT',
        received_currency: 'BTC',
        sender_amount: amount,
        address: 'x',
      }),
    ).rejects.toMatchObject({ fields: { sender_amount: expect.any(String) } });
    expect(service.received).toHaveLength(0);
  });

  it('refuses an empty foreign_id or a bad id before sending', async () => {
    await expect(client.cancelInvoice('')).rejects.toThrow(ProcessingValidationError);
    await expect(client.getTransaction({ id: 1.5 })).rejects.toThrow(ProcessingValidationError);
    expect(service.received).toHaveLength(0);
  });
});

test('each send signs with the keys it reads, so that a rotation between sends is taken up', async () => {
  let current = KEYS;
  const rotating = new ProcessingClient({
    baseUrl: service.url,
    keys: { get: async () => current, refresh: async () => current },
  });
  service.replies({ status: 201, body: { data: INVOICE } }, { status: 201, body: { data: INVOICE } });
  try {
    await rotating.createInvoice(INVOICE_REQUEST);
    current = NEW_KEYS;
    await expect(rotating.createInvoice(INVOICE_REQUEST)).resolves.toEqual(INVOICE);
  } finally {
    await rotating.close();
  }
  const sent = service.received[1];
  expect(sent.headers['x-processing-key']).toBe(NEW_KEYS.apiKey);
  expect(sent.headers['x-processing-signature']).toBe(hmacHex(NEW_KEYS.secretKey, sent.body));
});
