import { api, control, createInvoice, useSandbox } from './support';

// Spec 2.5 (instant withdrawal), 2.6 (transaction record), 4.3 and 4.7, and the ledger.

const getSandbox = useSandbox();

function withdrawalRequest(overrides: Record<string, unknown> = {}) {
  return {
    sender_currency: 'USDT',
    received_currency: 'BTC',
    sender_amount: '100',
    address: 'bc1qcustomerrefundaddress000000000000000',
    foreign_id: `wd-${Math.random().toString(36).slice(2)}`,
    end_user_reference: 'cust-42',
    ...overrides,
  };
}

const withdraw = (overrides: Record<string, unknown> = {}) =>
  api(getSandbox(), 'POST', '/v2/crypto/withdrawal_instant_exchange', withdrawalRequest(overrides));

async function balanceOf(currency: string): Promise<string> {
  const { data } = (await api(getSandbox(), 'POST', '/v2/accounts/list', {})).json;
  return data.find((entry: { currency: string }) => entry.currency === currency).balance;
}

const lookup = (query: string, body?: unknown) =>
  api(getSandbox(), 'GET', `/v2/transactions/info${query}`, body);

describe('2.5 Instant withdrawal with exchange (response object, under data)', () => {
  test('Created: 201 {data} with exactly the fields of 2.5', async () => {
    const answer = await withdraw({ foreign_id: 'wd-1' });
    expect(answer.status).toBe(201);
    expect(answer.json).toEqual({
      data: {
        id: expect.any(Number),
        foreign_id: 'wd-1',
        end_user_reference: 'cust-42',
        type: 'withdrawal_instant_exchange',
        status: 'processing',
        sender_currency: 'USDT',
        sender_amount: '100.00000000',
        received_currency: 'BTC',
        received_amount: '0.00166666',
      },
    });
  });

  test('id: integer transaction ID', async () => {
    expect(Number.isInteger((await withdraw()).json.data.id)).toBe(true);
  });

  test('foreign_id: the merchant ID of the request', async () => {
    expect((await withdraw({ foreign_id: 'refund-7' })).json.data.foreign_id).toBe('refund-7');
  });

  test('end_user_reference: optional, echoed when sent', async () => {
    expect((await withdraw({ end_user_reference: undefined })).json.data).not.toHaveProperty(
      'end_user_reference',
    );
  });

  test('type: always withdrawal_instant_exchange', async () => {
    expect((await withdraw({ sender_currency: 'EUR', received_currency: 'ETH' })).json.data.type).toBe(
      'withdrawal_instant_exchange',
    );
  });

  test('status: processing on creation', async () => {
    expect((await withdraw()).json.data.status).toBe('processing');
  });

  test('sender_currency and sender_amount: the source, 8 fractional digits', async () => {
    const data = (await withdraw({ sender_currency: 'EUR', sender_amount: 25.5, received_currency: 'LTC' }))
      .json.data;
    expect([data.sender_currency, data.sender_amount]).toEqual(['EUR', '25.50000000']);
  });

  test('received_currency and received_amount: sender_amount times the rate, rounded down to 8 digits', async () => {
    // 25.5 EUR at EUR→LTC 0.0135 is 0.34425 LTC.
    const data = (await withdraw({ sender_currency: 'EUR', sender_amount: '25.5', received_currency: 'LTC' }))
      .json.data;
    expect([data.received_currency, data.received_amount]).toEqual(['LTC', '0.34425000']);
  });
});

describe('4.3 withdrawal validation and the ledger', () => {
  test('every field but end_user_reference is required, all reported together', async () => {
    const answer = await api(getSandbox(), 'POST', '/v2/crypto/withdrawal_instant_exchange', {});
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.json.errors).sort()).toEqual(
      ['address', 'foreign_id', 'received_currency', 'sender_amount', 'sender_currency'].sort(),
    );
  });

  test('currencies must be supported, and the target a cryptocurrency', async () => {
    const answer = await withdraw({ sender_currency: 'ABC', received_currency: 'USD' });
    expect(Object.keys(answer.json.errors).sort()).toEqual(['received_currency', 'sender_currency']);
  });

  test('sender_amount must be numeric, above 0 and at least min_amount', async () => {
    expect(Object.keys((await withdraw({ sender_amount: 'lots' })).json.errors)).toEqual(['sender_amount']);
    expect(Object.keys((await withdraw({ sender_amount: '0' })).json.errors)).toEqual(['sender_amount']);
    expect(
      (await withdraw({ sender_currency: 'BTC', received_currency: 'ETH', sender_amount: '0.00009' })).json,
    ).toEqual({
      errors: { sender_amount: 'The sender amount field must be at least 0.00010000.' },
    });
  });

  test('the balance is debited by sender_amount once', async () => {
    await withdraw({ sender_amount: '250.5' });
    expect(await balanceOf('USDT')).toBe('49749.50000000');
  });

  test('a repeated foreign_id is refused and not debited again', async () => {
    await withdraw({ foreign_id: 'wd-once' });
    const again = await withdraw({ foreign_id: 'wd-once' });
    expect(again.status).toBe(400);
    expect(again.json.errors).toEqual({ foreign_id: 'The foreign id has already been taken.' });
    expect(await balanceOf('USDT')).toBe('49900.00000000');
  });

  test('insufficient funds: 400 and no debit', async () => {
    await control(getSandbox(), 'POST', '/balances', { currency: 'USDT', balance: '99.99' });
    const answer = await withdraw({ sender_amount: '100' });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ errors: { sender_amount: 'Insufficient funds.' } });
    expect(await balanceOf('USDT')).toBe('99.99000000');
  });

  test('a failed withdrawal gives the amount back; a confirmed one keeps it', async () => {
    await withdraw({ foreign_id: 'wd-fail' });
    await withdraw({ foreign_id: 'wd-ok' });
    await control(getSandbox(), 'POST', '/withdrawals/wd-fail/complete', { status: 'failed' });
    await control(getSandbox(), 'POST', '/withdrawals/wd-ok/complete', { status: 'confirmed' });
    expect(await balanceOf('USDT')).toBe('49900.00000000');
    const again = await control(getSandbox(), 'POST', '/withdrawals/wd-ok/complete', { status: 'failed' });
    expect(again.status).toBe(400);
  });

  test('a confirmed invoice credits the ledger with the amount less the 1% deposit fee', async () => {
    const invoice = await createInvoice(getSandbox(), { currency: 'EUR', amount: '200' });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/pay`, { kind: 'full' });
    expect(await balanceOf('EUR')).toBe('10198.00000000');
  });
});

describe('2.6 Transaction record (GET /v2/transactions/info)', () => {
  async function confirmedWithdrawal() {
    const created = (await withdraw({ foreign_id: 'wd-look' })).json.data;
    await control(getSandbox(), 'POST', '/withdrawals/wd-look/complete', { status: 'confirmed' });
    return created;
  }

  test('not wrapped in data; found by foreign_id for withdrawals', async () => {
    const created = await confirmedWithdrawal();
    const answer = await lookup('?foreign_id=wd-look');
    expect(answer.status).toBe(200);
    expect(answer.json).not.toHaveProperty('data');
    expect(answer.json.id).toBe(created.id);
  });

  test('id: integer; any transaction is found by id, invoice deposits too', async () => {
    const created = await confirmedWithdrawal();
    expect((await lookup(`?id=${created.id}`)).json.foreign_id).toBe('wd-look');
    const invoice = await createInvoice(getSandbox());
    expect((await lookup(`?id=${invoice.id}`)).json).toMatchObject({ id: invoice.id, type: 'invoice' });
    expect((await lookup(`?foreign_id=${invoice.foreign_id}`)).status).toBe(404);
  });

  test('foreign_id: the merchant identifier', async () => {
    await confirmedWithdrawal();
    expect((await lookup('?foreign_id=wd-look')).json.foreign_id).toBe('wd-look');
  });

  test('type: withrawal_exchange, spelled exactly so', async () => {
    await confirmedWithdrawal();
    expect((await lookup('?foreign_id=wd-look')).json.type).toBe('withrawal_exchange');
  });

  test('crypto_address: id, currency, address, tag', async () => {
    await confirmedWithdrawal();
    expect((await lookup('?foreign_id=wd-look')).json.crypto_address).toEqual({
      id: expect.any(Number),
      currency: 'BTC',
      address: 'bc1qcustomerrefundaddress000000000000000',
      tag: null,
    });
  });

  test('currency_sent: currency and amount as a JSON number with exact digits', async () => {
    await confirmedWithdrawal();
    const answer = await lookup('?foreign_id=wd-look');
    expect(answer.json.currency_sent).toEqual({ currency: 'USDT', amount: 100 });
    expect(answer.text).toContain('"currency_sent":{"currency":"USDT","amount":100.00000000}');
  });

  test('currency_received: currency and amount as a JSON number', async () => {
    await confirmedWithdrawal();
    const answer = await lookup('?foreign_id=wd-look');
    expect(answer.text).toContain('"currency_received":{"currency":"BTC","amount":0.00166666}');
  });

  test('transactions: id, currency, transaction_type, type, address, tag, amount, txid, confirmations', async () => {
    await confirmedWithdrawal();
    const [transfer] = (await lookup('?foreign_id=wd-look')).json.transactions;
    expect(transfer).toEqual({
      id: expect.any(Number),
      currency: 'BTC',
      transaction_type: 'blockchain',
      type: 'withdrawal',
      address: 'bc1qcustomerrefundaddress000000000000000',
      tag: null,
      amount: 0.00166666,
      txid: expect.stringMatching(/^[0-9a-f]{64}$/),
      confirmations: 6,
    });
  });

  test('fees: type, currency, amount (the invoice deposit fee)', async () => {
    const invoice = await createInvoice(getSandbox(), { currency: 'USD', amount: '100' });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/pay`, { kind: 'full' });
    const answer = await lookup(`?id=${invoice.id}`);
    expect(answer.json.fees).toEqual([
      { type: 'fee_crypto_deposit_wallet_client', currency: 'USD', amount: 1 },
    ]);
    expect(answer.text).toContain('"amount":1.00000000}]');
  });

  test('error: empty string when none, a description otherwise', async () => {
    await withdraw({ foreign_id: 'wd-err' });
    expect((await lookup('?foreign_id=wd-err')).json.error).toBe('');
    await control(getSandbox(), 'POST', '/withdrawals/wd-err/complete', {
      status: 'failed',
      error: 'Address rejected.',
    });
    expect((await lookup('?foreign_id=wd-err')).json.error).toBe('Address rejected.');
  });

  test('status: the transaction status', async () => {
    await confirmedWithdrawal();
    expect((await lookup('?foreign_id=wd-look')).json.status).toBe('confirmed');
  });
});

describe('4.7 lookup parameters', () => {
  test('the id may come in a JSON body, as in the spec sample', async () => {
    const created = (await withdraw({ foreign_id: 'wd-body' })).json.data;
    const answer = await lookup('', `{"id":${created.id}}`);
    expect(answer.json.foreign_id).toBe('wd-body');
  });

  test('query parameters win over the body', async () => {
    const first = (await withdraw({ foreign_id: 'wd-a' })).json.data;
    await withdraw({ foreign_id: 'wd-b' });
    expect((await lookup(`?foreign_id=wd-b`, { id: first.id })).json.foreign_id).toBe('wd-b');
  });

  test('unknown id or foreign_id: 404 Transaction not found', async () => {
    const answer = await lookup('?id=999999');
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'Transaction not found', code: 'not_found' });
    expect((await lookup('?foreign_id=nope')).status).toBe(404);
  });

  test('neither parameter, or a non-integer id: 400 naming id', async () => {
    expect((await lookup('', {})).json).toEqual({ errors: { id: expect.any(String) } });
    expect((await lookup('?id=abc')).json).toEqual({ errors: { id: 'The id field must be an integer.' } });
  });
});

describe('approval limits: a withdrawal over its currency limit waits for an owner', () => {
  afterEach(() => control(getSandbox(), 'POST', '/reset'));

  const limit = (body: unknown) => control(getSandbox(), 'POST', '/approval-limits', body);

  test('over the limit it is created pending, debited; under or at it, processing as before', async () => {
    expect((await limit({ currency: 'USDT', limit: '100' })).json).toEqual({
      limits: [{ currency: 'USDT', limit: '100.00000000' }],
    });
    const before = await balanceOf('USDT');
    expect((await withdraw({ sender_amount: '100' })).json.data.status).toBe('processing');
    expect((await withdraw({ sender_amount: '100.00000001' })).json.data.status).toBe('pending');
    const debited = Number(before) - Number(await balanceOf('USDT'));
    expect(debited.toFixed(8)).toBe('200.00000001');
    expect((await limit({ currency: 'USDT', limit: null })).json).toEqual({ limits: [] });
  });

  test('approve → processing, then completed as any other; decline gives the debit back', async () => {
    await limit({ currency: 'USDT', limit: '1' });
    await withdraw({ foreign_id: 'wd-held-1' });
    await withdraw({ foreign_id: 'wd-held-2' });
    const before = await balanceOf('USDT');

    const approved = await control(getSandbox(), 'POST', '/withdrawals/wd-held-1/approve');
    expect([approved.status, approved.json.status]).toEqual([200, 'processing']);
    const completed = await control(getSandbox(), 'POST', '/withdrawals/wd-held-1/complete', {
      status: 'confirmed',
    });
    expect(completed.json.status).toBe('confirmed');

    const declined = await control(getSandbox(), 'POST', '/withdrawals/wd-held-2/decline');
    expect(declined.json).toMatchObject({ status: 'declined', error: 'Withdrawal declined.' });
    expect(Number(await balanceOf('USDT')) - Number(before)).toBe(100);
    expect((await lookup('?foreign_id=wd-held-2')).json.status).toBe('declined');
  });

  test('only a pending withdrawal is approved, declined or cancelled; a pending one is not completed', async () => {
    await limit({ currency: 'USDT', limit: '1' });
    await withdraw({ foreign_id: 'wd-held-3' });
    const early = await control(getSandbox(), 'POST', '/withdrawals/wd-held-3/complete', {
      status: 'confirmed',
    });
    expect(early.status).toBe(400);
    expect((await control(getSandbox(), 'POST', '/withdrawals/wd-held-3/cancel')).json.status).toBe(
      'cancelled',
    );
    for (const action of ['approve', 'decline', 'cancel']) {
      const again = await control(getSandbox(), 'POST', `/withdrawals/wd-held-3/${action}`);
      expect([again.status, again.json.code]).toEqual([400, 'invalid_withdrawal_state']);
    }
    expect((await control(getSandbox(), 'POST', '/withdrawals/nope/approve')).status).toBe(404);
  });

  test('a limit must name a supported currency and a decimal >= 0', async () => {
    expect((await limit({ currency: 'XXX', limit: '1' })).status).toBe(400);
    expect((await limit({ currency: 'USDT', limit: '-1' })).status).toBe(400);
    expect((await limit({ currency: 'USDT', limit: 'lots' })).status).toBe(400);
  });
});
