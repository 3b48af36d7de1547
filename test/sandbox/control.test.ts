import { Agent, request } from 'node:http';
import { startSandbox } from '../../sandbox/server';
import { api, control, createInvoice, invoiceRequest, raw, useSandbox } from './support';

// The unsigned control API under /_sandbox: reset, request log, stats, faults, features, clock and balances.

const getSandbox = useSandbox();

const createBody = (foreignId: string) => invoiceRequest({ foreign_id: foreignId });
const addFault = (fault: Record<string, unknown>) => control(getSandbox(), 'POST', '/faults', fault);
const invoiceStatus = async (foreignId: string) => {
  const answer = await control(getSandbox(), 'GET', `/invoices/${foreignId}`);
  return answer.status === 404 ? 'absent' : answer.json.status;
};

/** A request that gives up after `timeoutMs`; resolves with how it ended. */
function callWithTimeout(path: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    const outgoing = request(`${getSandbox().url}${path}`, {
      method: 'POST',
      agent: false,
      timeout: timeoutMs,
    });
    outgoing.on('timeout', () => {
      outgoing.destroy();
      resolve('timeout');
    });
    outgoing.on('response', (response) => resolve(`status ${response.statusCode}`));
    outgoing.on('error', () => resolve('error'));
    outgoing.end('{}');
  });
}

describe('reset', () => {
  test('puts invoices, withdrawals, ledger, log, faults, features and callbacks back to the seeds', async () => {
    const sandbox = getSandbox();
    const invoice = await createInvoice(sandbox);
    await control(sandbox, 'POST', '/balances', { currency: 'BTC', balance: '0' });
    await control(sandbox, 'POST', '/features', { invoices_enabled: false });
    await control(sandbox, 'POST', '/callbacks', { url: 'http://127.0.0.1:9/x', duplicate: true });
    await addFault({ path: '/v2/accounts/list', kind: '5xx' });
    expect((await control(sandbox, 'POST', '/reset')).status).toBe(200);
    expect(await invoiceStatus(invoice.foreign_id)).toBe('absent');
    expect((await control(sandbox, 'GET', '/requests')).json.requests).toEqual([]);
    const balances = await api(sandbox, 'POST', '/v2/accounts/list', {});
    expect(balances.status).toBe(200);
    expect(balances.json.data[0]).toEqual({ currency: 'BTC', type: 'crypto', balance: '1.50000000' });
    expect((await createInvoice(sandbox)).id).toBe(1);
    const settings = await control(sandbox, 'POST', '/callbacks', {});
    // The payment service's schedule, its minutes as seconds.
    expect(settings.json).toEqual({
      url: null,
      retry_ms: [1, 5, 15, 30, 60, 90, 120, 180, 240, 240, 240, 240].map((seconds) => seconds * 1000),
      duplicate: false,
    });
  });
});

describe('requests log', () => {
  test('lists /v2 requests with method, path without query, status, time and raw body', async () => {
    const sandbox = getSandbox();
    await api(sandbox, 'POST', '/v2/invoices/create', '{"timer" : true}');
    await api(sandbox, 'GET', '/v2/transactions/info?id=77');
    await control(sandbox, 'GET', '/stats'); // control calls are not logged
    const { requests } = (await control(sandbox, 'GET', '/requests')).json;
    expect(requests).toEqual([
      {
        method: 'POST',
        path: '/v2/invoices/create',
        status: 400,
        at: expect.any(Number),
        body: '{"timer" : true}',
      },
      { method: 'GET', path: '/v2/transactions/info', status: 404, at: expect.any(Number), body: '' },
    ]);
  });

  test('filters by exact path or by a prefix ending in *', async () => {
    const sandbox = getSandbox();
    await api(sandbox, 'POST', '/v2/currencies/rates', {});
    await api(sandbox, 'POST', '/v2/currencies/pairs', {});
    await api(sandbox, 'POST', '/v2/accounts/list', {});
    const paths = async (filter: string) =>
      (await control(sandbox, 'GET', `/requests?path=${encodeURIComponent(filter)}`)).json.requests.map(
        (entry: { path: string }) => entry.path,
      );
    expect(await paths('/v2/currencies/pairs')).toEqual(['/v2/currencies/pairs']);
    expect(await paths('/v2/currencies/*')).toEqual(['/v2/currencies/rates', '/v2/currencies/pairs']);
  });
});

describe('stats', () => {
  test('counts new TCP connections and /v2 requests; keep-alive reuses a connection', async () => {
    const sandbox = getSandbox();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    for (let i = 0; i < 3; i++) await api(sandbox, 'POST', '/v2/accounts/list', {}, agent);
    const stats = (await control(sandbox, 'GET', '/stats')).json;
    agent.destroy();
    expect(stats.requests).toBe(3);
    expect(stats.api_connections).toBe(1);
    expect(stats.connections).toBeGreaterThanOrEqual(2); // the control call came on its own connection
    await api(sandbox, 'POST', '/v2/accounts/list', {});
    expect((await control(sandbox, 'GET', '/stats')).json).toMatchObject({ requests: 4, api_connections: 2 });
  });
});

describe('faults', () => {
  test('5xx answers the status without doing the operation, `times` times', async () => {
    expect((await addFault({ path: '/v2/invoices/create', kind: '5xx', status: 502, times: 1 })).status).toBe(
      201,
    );
    const failed = await api(getSandbox(), 'POST', '/v2/invoices/create', createBody('f-5xx'));
    expect(failed.status).toBe(502);
    expect(await invoiceStatus('f-5xx')).toBe('absent');
    expect((await api(getSandbox(), 'POST', '/v2/invoices/create', createBody('f-5xx'))).status).toBe(201);
  });

  test('delay does the operation and answers after delay_ms', async () => {
    await addFault({ path: '/v2/invoices/create', kind: 'delay', delay_ms: 300 });
    const started = Date.now();
    const pending = api(getSandbox(), 'POST', '/v2/invoices/create', createBody('f-delay'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await invoiceStatus('f-delay')).toBe('created');
    expect((await pending).status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
  });

  test('hang never answers; the request is logged with status null', async () => {
    await addFault({ path: '/v2/accounts/*', kind: 'hang' });
    expect(await callWithTimeout('/v2/accounts/list', 150)).toBe('timeout');
    const { requests } = (await control(getSandbox(), 'GET', '/requests')).json;
    expect(requests[0]).toMatchObject({ path: '/v2/accounts/list', status: null, fault: 'hang' });
  });

  test('reset_after_commit changes state, then drops the connection without an answer', async () => {
    await addFault({ path: '/v2/crypto/withdrawal_instant_exchange', kind: 'reset_after_commit', times: 1 });
    const body = {
      sender_currency: 'BTC',
      received_currency: 'ETH',
      sender_amount: '0.5',
      address: '0xabc',
      foreign_id: 'wd-reset',
    };
    await expect(api(getSandbox(), 'POST', '/v2/crypto/withdrawal_instant_exchange', body)).rejects.toThrow();
    const retry = await api(getSandbox(), 'POST', '/v2/crypto/withdrawal_instant_exchange', body);
    expect(retry.json.errors).toEqual({ foreign_id: 'The foreign id has already been taken.' });
    const lookup = await api(getSandbox(), 'GET', '/v2/transactions/info?foreign_id=wd-reset');
    expect(lookup.json.status).toBe('processing');
    const { data } = (await api(getSandbox(), 'POST', '/v2/accounts/list', {})).json;
    expect(data[0]).toEqual({ currency: 'BTC', type: 'crypto', balance: '1.00000000' }); // debited once
  });

  test('403 answers with the given code, bad_header_signature by default', async () => {
    await addFault({ path: '/v2/currencies/rates', kind: '403', times: 1 });
    await addFault({ path: '/v2/currencies/rates', kind: '403', code: 'bad_header_key', times: 1 });
    const first = await api(getSandbox(), 'POST', '/v2/currencies/rates', {
      currency_from: 'BTC',
      currency_to: 'USD',
    });
    const second = await api(getSandbox(), 'POST', '/v2/currencies/rates', {
      currency_from: 'BTC',
      currency_to: 'USD',
    });
    expect([first.status, first.json.code]).toEqual([403, 'bad_header_signature']);
    expect([second.status, second.json.code]).toEqual([403, 'bad_header_key']);
  });

  test('a method filter limits the fault; DELETE clears all faults', async () => {
    await addFault({ path: '/v2/*', method: 'GET', kind: '5xx' });
    expect((await api(getSandbox(), 'POST', '/v2/accounts/list', {})).status).toBe(200);
    expect((await api(getSandbox(), 'GET', '/v2/transactions/info?id=1')).status).toBe(503);
    await control(getSandbox(), 'DELETE', '/faults');
    expect((await api(getSandbox(), 'GET', '/v2/transactions/info?id=1')).status).toBe(404);
  });

  test('an invalid fault is refused', async () => {
    expect((await addFault({ path: '/v2/x', kind: 'explode' })).status).toBe(400);
    expect((await addFault({ kind: '5xx' })).status).toBe(400);
    expect((await addFault({ path: '/v2/x', kind: '5xx', status: 404 })).status).toBe(400);
  });
});

describe('other control calls', () => {
  test('clock: advances and answers the sandbox time in Unix seconds', async () => {
    const before = (await control(getSandbox(), 'POST', '/clock', { advance_seconds: 0 })).json.now;
    const after = (await control(getSandbox(), 'POST', '/clock', { advance_seconds: 3600 })).json.now;
    expect(after - before).toBeGreaterThanOrEqual(3600);
    expect((await control(getSandbox(), 'POST', '/clock', { advance_seconds: -1 })).status).toBe(400);
  });

  test('invoices: 404 for an unknown foreign_id', async () => {
    const answer = await control(getSandbox(), 'GET', '/invoices/nope');
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'Invoice not found', code: 'not_found' });
  });

  test('balances: set and read; invalid values refused', async () => {
    const set = await control(getSandbox(), 'POST', '/balances', { currency: 'ETH', balance: '3.25' });
    expect(set.json).toEqual({ currency: 'ETH', type: 'crypto', balance: '3.25000000' });
    expect((await control(getSandbox(), 'GET', '/balances')).json.data[1]).toEqual(set.json);
    expect(
      (await control(getSandbox(), 'POST', '/balances', { currency: 'ETH', balance: '-1' })).status,
    ).toBe(400);
    expect((await control(getSandbox(), 'POST', '/balances', { currency: 'XYZ', balance: '1' })).status).toBe(
      400,
    );
    expect(
      (await control(getSandbox(), 'POST', '/balances', { currency: 'ETH', balance: '1e500000' })).status,
    ).toBe(400);
  });

  test('withdrawal completion: 404 for an unknown withdrawal, 400 for a bad status', async () => {
    expect(
      (await control(getSandbox(), 'POST', '/withdrawals/none/complete', { status: 'confirmed' })).status,
    ).toBe(404);
    expect(
      (await control(getSandbox(), 'POST', '/withdrawals/none/complete', { status: 'done' })).status,
    ).toBe(400);
  });

  test('control bodies must be JSON objects; unknown control paths are 404', async () => {
    const bad = await raw(getSandbox(), 'POST', '/_sandbox/clock', { body: '{oops' });
    expect(bad.status).toBe(400);
    expect((await control(getSandbox(), 'GET', '/nothing')).status).toBe(404);
  });
});

describe('close', () => {
  test('closes keep-alive sockets and requests left hanging', async () => {
    const sandbox = await startSandbox();
    await control(sandbox, 'POST', '/faults', { path: '/v2/*', kind: 'hang' });
    const agent = new Agent({ keepAlive: true });
    await raw(sandbox, 'GET', '/_sandbox/stats', { agent });
    const hanging = raw(sandbox, 'POST', '/v2/accounts/list', { body: '{}' });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await sandbox.close();
    await expect(hanging).rejects.toThrow();
    agent.destroy();
  });
});

describe('transactions', () => {
  test('lists every invoice with what it credited, and every withdrawal', async () => {
    const sandbox = getSandbox();
    await createInvoice(sandbox, { foreign_id: 'listed-paid' });
    await createInvoice(sandbox, { foreign_id: 'listed-open' });
    await control(sandbox, 'POST', '/invoices/listed-paid/pay', { kind: 'full' });

    const { status, json } = await control(sandbox, 'GET', '/transactions');

    expect(status).toBe(200);
    const byId = Object.fromEntries(json.invoices.map((invoice: any) => [invoice.foreign_id, invoice]));
    expect(byId['listed-paid']).toMatchObject({
      status: 'confirmed',
      credited_amount: expect.stringMatching(/^\d+\.\d{8}$/),
    });
    expect(byId['listed-open']).toMatchObject({
      status: 'created',
      credited_amount: null,
      paid_amount: '0.00000000',
    });
    expect(json.withdrawals).toEqual([]);
  });
});

describe('confirmations', () => {
  test("an invoice's deposits gain confirmations short of confirming it; its status stays", async () => {
    const sandbox = getSandbox();
    await createInvoice(sandbox, { foreign_id: 'confirming', type: 'good_until_expired' });
    await control(sandbox, 'POST', '/invoices/confirming/pay', { kind: 'partial', currency: 'BTC' });
    const before = await control(sandbox, 'GET', '/invoices/confirming');
    expect(before.json.deposits).toEqual([
      {
        id: expect.any(Number),
        txid: expect.stringMatching(/^[0-9a-f]{64}$/),
        amount: expect.any(String),
        confirmations: 0,
      },
    ]);

    const grown = await control(sandbox, 'POST', '/invoices/confirming/confirmations', { confirmations: 3 });
    expect(grown.status).toBe(200);
    expect(grown.json).toMatchObject({ status: before.json.status, deposits: [{ confirmations: 3 }] });
    // Never down, and never as far as confirming: that is `settle`'s.
    await control(sandbox, 'POST', '/invoices/confirming/confirmations', { confirmations: 1 });
    const capped = await control(sandbox, 'POST', '/invoices/confirming/confirmations', {
      confirmations: 99,
    });
    expect(capped.json.deposits[0].confirmations).toBe(5);
  });

  test.each([[{}], [{ confirmations: 0 }], [{ confirmations: 1.5 }], [{ confirmations: '2' }]])(
    'refused: %j',
    async (body) => {
      const sandbox = getSandbox();
      await createInvoice(sandbox, { foreign_id: 'confirm-bad', type: 'good_until_expired' });
      await control(sandbox, 'POST', '/invoices/confirm-bad/pay', { kind: 'partial', currency: 'BTC' });
      const answer = await control(sandbox, 'POST', '/invoices/confirm-bad/confirmations', body);
      expect(answer.status).toBe(400);
    },
  );

  test('an invoice with no deposit has nothing to confirm', async () => {
    const sandbox = getSandbox();
    await createInvoice(sandbox, { foreign_id: 'confirm-none' });
    const answer = await control(sandbox, 'POST', '/invoices/confirm-none/confirmations', {
      confirmations: 2,
    });
    expect({ status: answer.status, code: answer.json.code }).toEqual({
      status: 400,
      code: 'invalid_invoice_state',
    });
  });
});
