import { api, control, createInvoice, hmacHex, startReceiver, useSandbox, waitFor } from './support';

// Payment simulation and the callbacks it sends: shape, signature, order, retries, duplicates and expiry.

const getSandbox = useSandbox({ apiKey: 'cb-key', secretKey: 'cb-secret', callbackRetryMs: [50, 50] });
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeEach(async () => {
  receiver = await startReceiver();
  await control(getSandbox(), 'POST', '/callbacks', { url: receiver.url });
});

afterEach(async () => {
  await receiver.close();
});

/** Waits for `count` callbacks and returns their parsed bodies. */
async function callbacks(count: number) {
  await waitFor(() => receiver.received.length >= count);
  return receiver.received.map((received) => JSON.parse(received.body));
}

const pay = (foreignId: string, body: Record<string, unknown>) =>
  control(getSandbox(), 'POST', `/invoices/${foreignId}/pay`, body);

describe('payment simulation', () => {
  test('full payment: callbacks processing then confirmed, with the transaction record fields', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC', amount: '100' });
    const paid = await pay(invoice.foreign_id, { kind: 'full' });
    expect(paid.json).toMatchObject({
      status: 'confirmed',
      paid_amount: '0.00166667',
      remaining_amount: '0.00000000',
    });
    const [processing, confirmed] = await callbacks(2);
    expect(processing.status).toBe('processing');
    expect(processing.transactions[0].confirmations).toBe(0);
    // Once the payment is seen, the timer runs 24 hours from then for its confirmation.
    const createdAt = invoice.release_at - 15 * 60;
    expect(processing.expires_at - createdAt).toBeGreaterThanOrEqual(24 * 60 * 60);
    expect(processing.expires_at - createdAt).toBeLessThan(24 * 60 * 60 + 60);
    expect(confirmed).toEqual({
      id: invoice.id,
      foreign_id: invoice.foreign_id,
      type: 'invoice',
      crypto_address: { id: expect.any(Number), currency: 'BTC', address: invoice.address, tag: null },
      currency_sent: { currency: 'BTC', amount: 0.00166667 },
      currency_received: { currency: 'USD', amount: 99 },
      transactions: [
        {
          id: expect.any(Number),
          currency: 'BTC',
          transaction_type: 'blockchain',
          type: 'deposit',
          address: invoice.address,
          tag: null,
          amount: 0.00166667,
          txid: expect.stringMatching(/^[0-9a-f]{64}$/),
          confirmations: 6,
        },
      ],
      fees: [{ type: 'fee_crypto_deposit_wallet_client', currency: 'USD', amount: 1 }],
      error: '',
      status: 'confirmed',
      fixed_at: invoice.fixed_at,
      expires_at: processing.expires_at,
    });
    expect(receiver.received[1].body).toContain(
      '"currency_received":{"currency":"USD","amount":99.00000000}',
    );
  });

  test('callbacks are signed: Content-Type, X-Processing-Key and HMAC-SHA512 of the exact body', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await pay(invoice.foreign_id, { kind: 'full' });
    await callbacks(2);
    for (const { headers, body } of receiver.received) {
      expect(headers['content-type']).toBe('application/json');
      expect(headers['x-processing-key']).toBe('cb-key');
      expect(headers['x-processing-signature']).toBe(hmacHex('cb-secret', body));
    }
    expect(JSON.parse(receiver.received[0].body).crypto_address.tag).toBe(String(invoice.id));
  });

  test('over-payment: confirmed, with more sent than required', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await pay(invoice.foreign_id, { kind: 'over', amount: '25' });
    const [, confirmed] = await callbacks(2);
    expect(confirmed).toMatchObject({ status: 'confirmed', currency_sent: { currency: 'XRP', amount: 25 } });
    expect(confirmed.currency_received.amount).toBe(9.9);
  });

  test('under-payment: processing, then failed with an error text and no credit', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await pay(invoice.foreign_id, { kind: 'under' });
    const [processing, failed] = await callbacks(2);
    expect(processing.status).toBe('processing');
    expect(failed).toMatchObject({ status: 'failed', error: 'User paid less than required.' });
    expect(failed.currency_sent).toEqual({ currency: 'XRP', amount: 10 });
    expect(failed.currency_received.amount).toBe(0);
  });

  test('partial payment (good_until_expired): stays pending with remaining_amount; the rest confirms', async () => {
    const invoice = await createInvoice(getSandbox(), {
      type: 'good_until_expired',
      timer: true,
      sender_currency: 'XRP',
      amount: '10',
    });
    const first = await pay(invoice.foreign_id, { kind: 'partial', amount: '5.5' });
    expect(first.json).toMatchObject({ status: 'pending', remaining_amount: '14.50000000' });
    const [pending] = await callbacks(1);
    expect(pending).toMatchObject({
      status: 'pending',
      currency_sent: { currency: 'XRP', amount: 5.5, remaining_amount: 14.5 },
    });
    await pay(invoice.foreign_id, { kind: 'full' });
    const [, processing, confirmed] = await callbacks(3);
    expect(processing.status).toBe('processing');
    expect(confirmed).toMatchObject({ status: 'confirmed', currency_sent: { amount: 20 } });
    expect(confirmed.currency_sent).not.toHaveProperty('remaining_amount');
    expect(confirmed.transactions).toHaveLength(2);
  });

  test('partial payment needs a good_until_expired invoice; amounts must fit the kind', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    expect((await pay(invoice.foreign_id, { kind: 'partial' })).status).toBe(400);
    expect((await pay(invoice.foreign_id, { kind: 'over', amount: '5' })).json.code).toBe('bad_amount');
    expect((await pay(invoice.foreign_id, { kind: 'sideways' })).status).toBe(400);
  });

  test('an invoice without a pre-selected currency gets its quote and address when paid', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: false, currency: 'EUR', amount: '54' });
    const paid = (await pay(invoice.foreign_id, { kind: 'full', currency: 'ETH' })).json;
    expect(paid).toMatchObject({ status: 'confirmed', sender_currency: 'ETH', sender_amount: '0.01944000' });
    expect(paid.address).toMatch(/^0x/);
  });

  test('hold leaves the payment processing until settled', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'LTC', amount: '10' });
    expect((await pay(invoice.foreign_id, { kind: 'full', hold: true })).json.status).toBe('processing');
    await control(getSandbox(), 'POST', '/clock', { advance_seconds: 1000 });
    const settled = await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/settle`);
    expect(settled.json.status).toBe('confirmed');
  });

  test('expiry: the clock passing release_at fails the invoice with "Timer expired. User not paid."', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true });
    const clock = await control(getSandbox(), 'POST', '/clock', { advance_seconds: 901 });
    // The sandbox's clock is the real one advanced: a second may pass between the create and the advance.
    expect(clock.json.now).toBeGreaterThan(invoice.release_at);
    const [expired] = await callbacks(1);
    expect(expired).toMatchObject({
      id: invoice.id,
      status: 'failed',
      error: 'Timer expired. User not paid.',
      crypto_address: null,
      currency_sent: null,
      expires_at: invoice.release_at,
    });
  });

  test('expiry of a partly paid good_until_expired invoice fails it as paid partially', async () => {
    const invoice = await createInvoice(getSandbox(), {
      type: 'good_until_expired',
      timer: true,
      sender_currency: 'XRP',
      amount: '10',
    });
    await pay(invoice.foreign_id, { kind: 'partial' });
    await control(getSandbox(), 'POST', '/clock', { advance_seconds: 900 });
    const [, expired] = await callbacks(2);
    expect(expired).toMatchObject({
      status: 'failed',
      error: 'Timer expired. User paid partially.',
      currency_sent: { amount: 10, remaining_amount: 10 },
    });
  });

  test('expire control call: as if the timer ran out', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC' });
    const answer = await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/expire`);
    expect(answer.json).toMatchObject({ status: 'failed', error: 'Timer expired. User not paid.' });
    expect((await callbacks(1))[0].status).toBe('failed');
  });

  test('a payment after expiry: the invoice stays failed, the deposit is confirmed and credited, a callback says so', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/expire`);
    const late = await pay(invoice.foreign_id, { kind: 'full' });
    expect(late.json).toMatchObject({
      status: 'failed',
      error: 'Timer expired. User not paid.',
      paid_amount: '20.00000000',
    });
    const [, paidLate] = await callbacks(2);
    expect(paidLate).toMatchObject({
      status: 'failed',
      error: 'Timer expired. User not paid.',
      currency_sent: { currency: 'XRP', amount: 20 },
      currency_received: { currency: 'USD', amount: 9.9 },
      fees: [{ currency: 'USD', amount: 0.1 }],
    });
    expect(paidLate.transactions[0].confirmations).toBe(6);
  });

  test('a late payment needs an address to pay to; held, it is reported seen and credited once settled', async () => {
    const noAddress = await createInvoice(getSandbox(), { timer: true });
    await control(getSandbox(), 'POST', `/invoices/${noAddress.foreign_id}/expire`);
    expect((await pay(noAddress.foreign_id, { kind: 'full', currency: 'BTC' })).status).toBe(400);
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/expire`);
    expect((await pay(invoice.foreign_id, { kind: 'full', hold: true })).status).toBe(200);
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/settle`);
    const [, , seen, settled] = await callbacks(4);
    expect(seen).toMatchObject({
      status: 'failed',
      currency_sent: { amount: 20 },
      currency_received: { amount: 0 },
    });
    expect(seen.transactions[0].confirmations).toBe(0);
    expect(settled).toMatchObject({ status: 'failed', currency_received: { currency: 'USD', amount: 9.9 } });
  });

  test('money seen as the merchant cancels is still confirmed and credited; so is money sent after', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await pay(invoice.foreign_id, { kind: 'full', hold: true });
    const cancelled = await api(getSandbox(), 'POST', `/v2/invoices/${invoice.foreign_id}/cancel/`, {});
    expect(cancelled.status).toBe(200);
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/settle`);
    const [processing, cancel, credited] = await callbacks(3);
    expect(processing.status).toBe('processing');
    expect(cancel).toMatchObject({ status: 'failed', error: 'Invoice cancelled by merchant.' });
    expect(cancel.currency_received.amount).toBe(0);
    expect(credited).toMatchObject({
      status: 'failed',
      error: 'Invoice cancelled by merchant.',
      currency_sent: { currency: 'XRP', amount: 20 },
      currency_received: { currency: 'USD', amount: 9.9 },
    });

    const after = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await api(getSandbox(), 'POST', `/v2/invoices/${after.foreign_id}/cancel/`, {});
    expect((await pay(after.foreign_id, { kind: 'full' })).json).toMatchObject({
      status: 'failed',
      error: 'Invoice cancelled by merchant.',
      paid_amount: '20.00000000',
    });
  });

  test('fail control call: an open invoice fails with the given text; a final one cannot', async () => {
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC' });
    const path = `/invoices/${invoice.foreign_id}/fail`;
    expect((await control(getSandbox(), 'POST', path, {})).status).toBe(400);
    const failed = await control(getSandbox(), 'POST', path, { error: 'Processing took over 24 hours.' });
    expect(failed.json).toMatchObject({ status: 'failed', error: 'Processing took over 24 hours.' });
    expect((await callbacks(1))[0]).toMatchObject({
      status: 'failed',
      error: 'Processing took over 24 hours.',
    });
    expect((await control(getSandbox(), 'POST', path, { error: 'again' })).json.code).toBe(
      'invalid_invoice_state',
    );
  });

  test('cancel sends a failed callback', async () => {
    const invoice = await createInvoice(getSandbox());
    await api(getSandbox(), 'POST', `/v2/invoices/${invoice.foreign_id}/cancel/`, {});
    expect((await callbacks(1))[0]).toMatchObject({
      status: 'failed',
      error: 'Invoice cancelled by merchant.',
    });
  });

  test("cancel_error sets a cancel's words, as another service words it; money sent after is late all the same", async () => {
    expect((await control(getSandbox(), 'POST', '/features', { cancel_error: 7 })).status).toBe(400);
    const set = await control(getSandbox(), 'POST', '/features', { cancel_error: 'Cancelled by merchant.' });
    expect(set.json).toMatchObject({ cancel_error: 'Cancelled by merchant.' });
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'XRP', amount: '10' });
    await api(getSandbox(), 'POST', `/v2/invoices/${invoice.foreign_id}/cancel/`, {});
    expect((await callbacks(1))[0]).toMatchObject({ status: 'failed', error: 'Cancelled by merchant.' });
    expect((await pay(invoice.foreign_id, { kind: 'full' })).json).toMatchObject({
      status: 'failed',
      error: 'Cancelled by merchant.',
      paid_amount: '20.00000000',
    });

    await control(getSandbox(), 'POST', '/reset');
    const after = await control(getSandbox(), 'POST', '/features', { invoice_lookups: true });
    expect(after.json.cancel_error).toBe('Invoice cancelled by merchant.');
  });

  test('withdrawal completion sends a withrawal_exchange callback', async () => {
    await api(getSandbox(), 'POST', '/v2/crypto/withdrawal_instant_exchange', {
      sender_currency: 'USD',
      received_currency: 'TRX',
      sender_amount: '10',
      address: 'TRefundAddress',
      foreign_id: 'wd-cb',
    });
    await control(getSandbox(), 'POST', '/withdrawals/wd-cb/complete', { status: 'confirmed' });
    const [done] = await callbacks(1);
    expect(done).toMatchObject({
      foreign_id: 'wd-cb',
      type: 'withrawal_exchange',
      status: 'confirmed',
      currency_received: { currency: 'TRX', amount: 100 },
    });
    expect(done).not.toHaveProperty('expires_at');
  });
});

describe('delivery', () => {
  test('a non-200 answer is retried: first 500 then 200 gives two deliveries of the same bytes', async () => {
    await receiver.close();
    receiver = await startReceiver([500]);
    await control(getSandbox(), 'POST', '/callbacks', { url: receiver.url });
    const invoice = await createInvoice(getSandbox(), { timer: true });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/expire`);
    await callbacks(2);
    expect(receiver.received[0].body).toBe(receiver.received[1].body);
    const { deliveries } = (await control(getSandbox(), 'GET', '/callbacks')).json;
    expect(deliveries.map((d: { status: number; attempt: number }) => [d.status, d.attempt])).toEqual([
      [500, 1],
      [200, 2],
    ]);
    expect(deliveries[0]).toMatchObject({
      url: receiver.url,
      body: receiver.received[0].body,
      at: expect.any(Number),
    });
  });

  test('a connection error is logged with status null and retried until the schedule runs out', async () => {
    await receiver.close(); // nothing listens on that port now
    const invoice = await createInvoice(getSandbox(), { timer: true });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/expire`);
    const attempts = await waitFor(async () => {
      const { deliveries } = (await control(getSandbox(), 'GET', '/callbacks')).json;
      return deliveries.length >= 3 && (deliveries as { status: number | null; attempt: number }[]);
    });
    expect(attempts.map((d) => [d.status, d.attempt])).toEqual([
      [null, 1],
      [null, 2],
      [null, 3],
    ]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect((await control(getSandbox(), 'GET', '/callbacks')).json.deliveries).toHaveLength(3);
  });

  test("the payment service's schedule on a sped-up clock: 12 retries after the first attempt, each after its wait", async () => {
    await receiver.close();
    receiver = await startReceiver(Array(20).fill(500));
    const speedUp = 12_000; // a minute of the service's schedule is 5 ms here
    await control(getSandbox(), 'POST', '/callbacks', { url: receiver.url, speed_up: speedUp });
    const invoice = await createInvoice(getSandbox(), { timer: true });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/expire`);

    type Attempt = { status: number; attempt: number; at: number };
    const attempts = await waitFor(async () => {
      const { deliveries } = (await control(getSandbox(), 'GET', '/callbacks')).json;
      return deliveries.length >= 13 && (deliveries as Attempt[]);
    }, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 100));

    expect((await control(getSandbox(), 'GET', '/callbacks')).json.deliveries).toHaveLength(13);
    expect(attempts.map(({ attempt }) => attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
    const minutes = [1, 5, 15, 30, 60, 90, 120, 180, 240, 240, 240, 240];
    const gaps = attempts.slice(1).map(({ at }, i) => at - attempts[i].at);
    // A timer may fire a millisecond early, and the clock reads whole milliseconds; a busy machine only adds.
    gaps.forEach((gap, i) => expect(gap).toBeGreaterThanOrEqual((minutes[i] * 60_000) / speedUp - 2));
  }, 40_000);

  test('duplicate: every callback is delivered twice', async () => {
    await control(getSandbox(), 'POST', '/callbacks', { duplicate: true });
    const invoice = await createInvoice(getSandbox(), { timer: true });
    await control(getSandbox(), 'POST', `/invoices/${invoice.foreign_id}/expire`);
    await callbacks(2);
    expect(receiver.received[0].body).toBe(receiver.received[1].body);
    const { deliveries } = (await control(getSandbox(), 'GET', '/callbacks')).json;
    expect(deliveries[0].event).toBe(deliveries[1].event);
  });

  test('callbacks about one invoice arrive in order even when an earlier one is retried', async () => {
    await receiver.close();
    receiver = await startReceiver([503]);
    await control(getSandbox(), 'POST', '/callbacks', { url: receiver.url });
    const invoice = await createInvoice(getSandbox(), { timer: true, sender_currency: 'BTC' });
    await pay(invoice.foreign_id, { kind: 'full' });
    const bodies = await callbacks(3);
    expect(bodies.map((body) => body.status)).toEqual(['processing', 'processing', 'confirmed']);
  });
});
