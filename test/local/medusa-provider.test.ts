// The Medusa provider class driven as Medusa's payment module drives it, against the whole local stack: the
// plugin's real API, the sandbox's payments and the plugin's signed webhooks. No Medusa server runs here.
import { createServer, request as httpRequest } from 'node:http';
import { MerchantPaymentsProvider } from '../../packages/medusa-payment/src';
import { listen, type Listening } from '../../local/listen';
import { startWebhookReceiver, type ReceivedEvent, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import { startHarness, type Harness } from '../support/local-stack';
import { waitFor } from '../support/wait';

const secret = newWebhookSecret();
const customer = { id: 'cus_1', email: 'customer@example.com' };
let harness: Harness;
let receiver: WebhookReceiver;
let provider: MerchantPaymentsProvider;

const providerAt = (apiUrl: string, webhookSecret = secret) =>
  new MerchantPaymentsProvider(
    {},
    {
      api_url: apiUrl,
      storefront_token: harness.stack.storefrontToken,
      admin_token: harness.stack.adminToken,
      webhook_secret: webhookSecret,
      url_success: 'https://shop.example/order/confirmed',
      url_failed: 'https://shop.example/checkout',
    },
  );

beforeAll(async () => {
  receiver = await startWebhookReceiver(secret);
  harness = await startHarness({ webhooks: { url: receiver.url, secret, intervalMs: 50 } });
  provider = providerAt(harness.stack.url);
}, 120_000);
afterAll(async () => {
  await harness?.close();
  await receiver?.close();
});

/** Starts a session as Medusa's payment module does: the session's id in data, the customer in the context. */
const initiate = (sessionId: string, amount: unknown, extra: Record<string, unknown> = {}) =>
  provider.initiatePayment({
    amount: amount as string,
    currency_code: 'eur',
    data: { session_id: sessionId, sender_currency: 'BTC', ...extra },
    context: { idempotency_key: sessionId, customer },
  });

const view = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;

/** The plugin's webhook for an invoice reaching `status`, as Medusa's /hooks/payment route hands it over. */
async function webhook(foreignId: string, status: string) {
  const matches = (event: ReceivedEvent) => {
    const body = JSON.parse(event.body);
    return body.data?.foreign_id === foreignId && body.data.status === status;
  };
  const found = await waitFor(
    async () => receiver.received.find(matches),
    (event) => event !== undefined,
    30_000,
  );
  expect(found).toBeDefined();
  return { data: JSON.parse(found!.body), rawData: Buffer.from(found!.body), headers: found!.headers! };
}

test('initiate, pay in the sandbox, the webhook: captured at once, and capturing asks nothing of the plugin', async () => {
  const started = await initiate('payses_paid', { numeric: 25.5, raw: { value: '25.5', precision: 20 } });
  const foreignId = 'ms.payses_paid.r1';
  expect(started).toMatchObject({ id: foreignId, status: 'pending' });
  expect(started.data).toMatchObject({
    session_id: 'payses_paid',
    foreign_id: foreignId,
    revision: 1,
    amount: '25.5',
    currency: 'EUR',
    status: 'awaiting_payment',
    invoice_url: `${harness.stack.url}/public/invoices/${foreignId}`,
    client_secret: expect.stringMatching(/^cs_/),
  });
  // What the storefront's widget gets holds no token.
  const shown = JSON.stringify(started.data);
  for (const token of [harness.stack.storefrontToken, harness.stack.adminToken, secret]) {
    expect(shown).not.toContain(token);
  }
  const widget = await fetch(started.data!.invoice_url as string, {
    headers: { 'x-client-secret': started.data!.client_secret as string },
  });
  expect(widget.status).toBe(200);
  expect(await view(foreignId)).toMatchObject({
    amount: '25.50000000',
    currency: 'EUR',
    metadata: { medusa_session_id: 'payses_paid', medusa_revision: '1' },
  });

  expect((await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' })).status).toBe(200);
  expect(await provider.getWebhookActionAndData(await webhook(foreignId, 'paid'))).toEqual({
    action: 'captured',
    data: { session_id: 'payses_paid', amount: '25.50000000' },
  });
  const authorized = await provider.authorizePayment({ data: started.data });
  expect(authorized.status).toBe('captured');
  const before = (await harness.upstreamRequests('/v2/*')).length;
  expect(await provider.capturePayment({ data: authorized.data })).toEqual({ data: authorized.data });
  expect((await harness.upstreamRequests('/v2/*')).length).toBe(before);
});

test('a payment confirming is pending_authorization, and cannot be cancelled or replaced', async () => {
  const started = await initiate('payses_confirming', '40');
  const foreignId = 'ms.payses_confirming.r1';
  await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full', hold: true });
  expect(await provider.getWebhookActionAndData(await webhook(foreignId, 'confirming'))).toMatchObject({
    action: 'pending_authorization',
  });
  expect((await provider.authorizePayment({ data: started.data })).status).toBe('pending_authorization');
  const paying = { code: 'payment_in_progress', message: expect.stringContaining('The customer is paying') };
  await expect(
    provider.updatePayment({ amount: '41', currency_code: 'eur', data: started.data, context: { customer } }),
  ).rejects.toMatchObject(paying);
  await expect(provider.cancelPayment({ data: started.data })).rejects.toMatchObject(paying);
  expect((await view('ms.payses_confirming.r2')).error.code).toBe('not_found');
});

test('a new amount opens a new invoice under a new foreign_id, and cancels the old one first', async () => {
  const started = await initiate('payses_update', '10');
  const same = await provider.updatePayment({
    amount: 10,
    currency_code: 'eur',
    data: started.data,
    context: { customer },
  });
  expect(same).toEqual({ data: started.data });

  const updated = await provider.updatePayment({
    amount: '12.34',
    currency_code: 'eur',
    data: started.data,
    context: { customer },
  });
  expect(updated).toMatchObject({
    status: 'pending',
    data: { foreign_id: 'ms.payses_update.r2', revision: 2, amount: '12.34', status: 'awaiting_payment' },
  });
  expect(await view('ms.payses_update.r1')).toMatchObject({ status: 'cancelled' });
  expect(await view('ms.payses_update.r2')).toMatchObject({
    status: 'awaiting_payment',
    amount: '12.34000000',
  });
  // The old invoice's cancellation is news of a replaced invoice, not of the session.
  const cancelled = await webhook('ms.payses_update.r1', 'cancelled');
  expect(await provider.getWebhookActionAndData(cancelled)).toEqual({ action: 'not_supported' });

  // Medusa sending the same update again (its answer lost) reaches the same invoice.
  const again = await provider.updatePayment({
    amount: '12.34',
    currency_code: 'eur',
    data: started.data,
    context: { customer },
  });
  expect(again.data).toMatchObject({
    foreign_id: 'ms.payses_update.r2',
    client_secret: updated.data!.client_secret,
  });
});

test('an update retried with yet another amount closes the invoice it had opened, and takes the next revision', async () => {
  const started = await initiate('payses_retried', '10');
  const update = (amount: string) =>
    provider.updatePayment({ amount, currency_code: 'eur', data: started.data, context: { customer } });
  // The first update's answer never reached Medusa, which then updates the same session to another amount.
  await update('11');
  const retried = await update('12');
  expect(retried.data).toMatchObject({ foreign_id: 'ms.payses_retried.r3', revision: 3, amount: '12' });
  const statuses = await Promise.all(
    ['r1', 'r2', 'r3'].map(async (r) => (await view(`ms.payses_retried.${r}`)).status),
  );
  // One payable invoice for the session, whatever Medusa sent.
  expect(statuses).toEqual(['cancelled', 'cancelled', 'awaiting_payment']);
});

test('cancel and delete cancel the invoice, and may be sent again', async () => {
  const started = await initiate('payses_cancel', '15');
  const cancelled = await provider.cancelPayment({ data: started.data });
  expect(cancelled.data).toMatchObject({ foreign_id: 'ms.payses_cancel.r1', status: 'cancelled' });
  expect(await view('ms.payses_cancel.r1')).toMatchObject({ status: 'cancelled' });
  expect((await provider.getPaymentStatus({ data: started.data })).status).toBe('canceled');
  await expect(provider.deletePayment({ data: started.data })).resolves.toMatchObject({
    data: { status: 'cancelled' },
  });
  const cancelledNews = await webhook('ms.payses_cancel.r1', 'cancelled');
  expect(await provider.getWebhookActionAndData(cancelledNews)).toEqual({
    action: 'canceled',
    data: { session_id: 'payses_cancel', amount: '15.00000000' },
  });
  // A session whose initiate failed holds no invoice: deleting it asks nothing.
  expect(await provider.deletePayment({ data: { session_id: 'payses_never' } })).toEqual({
    data: { session_id: 'payses_never' },
  });
});

describe('refunds', () => {
  let paid: Record<string, unknown>;

  beforeAll(async () => {
    const started = await initiate('payses_refund', '30', {
      refund_address: 'bc1qrefundaddress0000000000000000000000',
    });
    const foreignId = 'ms.payses_refund.r1';
    await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' });
    await waitFor(
      () => view(foreignId),
      (body) => body.status === 'paid' && body.net_amount !== null,
      30_000,
    );
    paid = started.data!;
  }, 60_000);

  test('to the address the session holds, once however often Medusa sends it', async () => {
    const refund = () =>
      provider.refundPayment({ amount: '5', data: paid, context: { idempotency_key: 'ref_address' } });
    const first = await refund();
    expect(first.data).toMatchObject({
      refunds: [
        { foreign_id: 'mr.ref_address', debited_amount: expect.stringMatching(/^5\.0+$/), claim_url: null },
      ],
      claim_url: null,
    });
    const again = await refund();
    expect(again.data!.refunds).toEqual(first.data!.refunds);
    const refunds = (await view('ms.payses_refund.r1')).refunds;
    expect(refunds.filter((one: any) => one.foreign_id === 'mr.ref_address')).toHaveLength(1);
  });

  test('without an address, as a claim link whose URL the payment data returns', async () => {
    const { refund_address: _address, ...withoutAddress } = paid;
    const claimed = await provider.refundPayment({
      amount: { value: '2.5' } as never,
      data: withoutAddress,
      context: { idempotency_key: 'ref_claim' },
    });
    expect(claimed.data).toMatchObject({
      refunds: [{ foreign_id: 'mr.ref_claim', status: 'awaiting_claim', claim_url: expect.any(String) }],
      claim_url: expect.stringContaining('#'),
    });
    const refund = (await harness.api('GET', '/refunds/mr.ref_claim', { token: 'admin' })).body;
    expect(refund).toMatchObject({
      status: 'awaiting_claim',
      address: null,
      claim_url: claimed.data!.claim_url,
    });
  });

  test('more than the order has left is refused, naming what is left', async () => {
    await expect(
      provider.refundPayment({ amount: '1000', data: paid, context: { idempotency_key: 'ref_too_much' } }),
    ).rejects.toMatchObject({
      code: 'refund_exceeds_refundable',
      message: expect.stringMatching(/exceeds what the order has left to refund .*\d EUR\)$/),
    });
  });
});

test("a webhook signed with another secret is refused, one of the plugin's is believed", async () => {
  const started = await initiate('payses_forged', '20');
  await provider.cancelPayment({ data: started.data });
  const genuine = await webhook('ms.payses_forged.r1', 'cancelled');
  // The same delivery, checked by a provider that holds another store's secret.
  const forged = providerAt(harness.stack.url, newWebhookSecret());
  await expect(forged.getWebhookActionAndData(genuine)).rejects.toMatchObject({ code: 'invalid_signature' });
  await expect(provider.getWebhookActionAndData(genuine)).resolves.toMatchObject({ action: 'canceled' });
});

/** A proxy in front of the plugin that forwards every request, and drops the first checkout's answer once it is made. */
async function answerLosingProxy(target: string): Promise<Listening & { state: { checkouts: number } }> {
  const state = { checkouts: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const checkout = request.method === 'POST' && request.url === '/checkout';
      if (checkout) state.checkouts += 1;
      const lose = checkout && state.checkouts === 1;
      const upstream = httpRequest(`${target}${request.url}`, {
        method: request.method,
        headers: request.headers,
      });
      upstream.on('response', (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          // The plugin made the invoice and answered; the provider never hears it.
          if (lose) return void request.socket.destroy();
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          response.end(Buffer.concat(parts));
        });
      });
      upstream.on('error', () => response.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  return { ...(await listen(server, 0)), state };
}

test("an initiate whose answer is lost is sent again with the same foreign_id: one invoice, the service's once", async () => {
  const proxy = await answerLosingProxy(harness.stack.url);
  try {
    const throughProxy = providerAt(proxy.url);
    const started = await throughProxy.initiatePayment({
      amount: '18.75',
      currency_code: 'eur',
      data: { session_id: 'payses_lost', sender_currency: 'BTC' },
      context: { idempotency_key: 'payses_lost', customer },
    });
    expect(proxy.state.checkouts).toBe(2);
    expect(started).toMatchObject({ id: 'ms.payses_lost.r1', status: 'pending' });
    expect(started.data!.client_secret).toMatch(/^cs_/);
    const creates = await harness.upstreamRequests('/v2/invoices/create');
    expect(creates.filter((one) => one.body.includes('ms.payses_lost.'))).toHaveLength(1);
    expect((await view('ms.payses_lost.r2')).error.code).toBe('not_found');
  } finally {
    await proxy.close();
  }
});
