// The Admin order-cancel guard against the whole local stack: real invoices made by the provider, the plugin's real
// answers. Only Medusa is played here: its `query` answers the order's sessions, as the graph read would.
import type { MedusaContainer, RemoteQueryFunction } from '@medusajs/types';
import { MerchantPaymentsProvider, orderCancelGuard } from '../../packages/medusa-payment/src';
import type { GuardQuery, GuardRequest } from '../../packages/medusa-payment/src';
import { listen } from '../../local/listen';
import { createServer } from 'node:http';
import { newWebhookSecret } from '../../webhooks/signing';
import { startHarness, type Harness } from '../support/local-stack';
import { waitFor } from '../support/wait';

const OURS = 'pp_merchant-payments_default';
const customer = { id: 'cus_1', email: 'customer@example.com' };
let harness: Harness;
let provider: MerchantPaymentsProvider;

const optionsAt = (apiUrl: string) => ({
  api_url: apiUrl,
  storefront_token: harness.stack.storefrontToken,
  admin_token: harness.stack.adminToken,
  webhook_secret: newWebhookSecret(),
  url_success: 'https://shop.example/order/confirmed',
  url_failed: 'https://shop.example/checkout',
  max_attempts: 2,
});

beforeAll(async () => {
  harness = await startHarness();
  provider = new MerchantPaymentsProvider({}, optionsAt(harness.stack.url));
}, 120_000);
afterAll(async () => {
  await harness?.close();
});

const view = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;

/** A session's data, with its invoice made by the provider as Medusa's payment module would have it. */
async function session(sessionId: string, amount = '40') {
  const started = await provider.initiatePayment({
    amount,
    currency_code: 'eur',
    data: { session_id: sessionId, sender_currency: 'BTC' },
    context: { idempotency_key: sessionId, customer },
  });
  return started.data as Record<string, unknown> & { foreign_id: string };
}

async function confirming(sessionId: string) {
  const data = await session(sessionId);
  await harness.control('POST', `/invoices/${data.foreign_id}/pay`, { kind: 'full', hold: true });
  await waitFor(
    () => view(data.foreign_id),
    (body) => body.status === 'confirming',
    30_000,
  );
  return data;
}

async function paid(sessionId: string) {
  const data = await session(sessionId);
  await harness.control('POST', `/invoices/${data.foreign_id}/pay`, { kind: 'full' });
  await waitFor(
    () => view(data.foreign_id),
    (body) => body.status === 'paid' && body.refundable !== null,
    30_000,
  );
  return data;
}

type Sessions = Array<{ provider_id: string; data: Record<string, unknown> }>;

/** Medusa's cancel route as the guard meets it: the order's graph, and what the guard answered or passed on. */
async function cancel(sessions: Sessions, { status = 'pending', apiUrl = harness.stack.url } = {}) {
  const asked: unknown[] = [];
  const query: GuardQuery = {
    graph: async (config) => {
      asked.push(config);
      return { data: [{ id: 'order_1', status, payment_collections: [{ payment_sessions: sessions }] }] };
    },
  };
  const outcome: { status?: number; body?: any; next?: unknown[] } = {};
  const guard = orderCancelGuard({ ...optionsAt(apiUrl), id: 'default' });
  await guard(
    {
      params: { id: 'order_1' },
      scope: { resolve: <T>(key: string) => (key === 'query' ? query : {}) as T },
    },
    {
      status: (code) => ({
        json: (body) => {
          outcome.status = code;
          outcome.body = body;
          return undefined;
        },
      }),
    },
    (...args) => (outcome.next = args),
  );
  return { ...outcome, asked };
}

test("the guard takes Medusa's container and query (checked by the compiler against @medusajs/types)", () => {
  const asGuard = (
    scope: MedusaContainer,
    query: RemoteQueryFunction,
  ): [GuardRequest['scope'], GuardQuery] => [scope, query];
  expect(asGuard).toBeInstanceOf(Function);
});

test('an open invoice is cancelled at the plugin, then Medusa goes on', async () => {
  const data = await session('guard_open');
  const outcome = await cancel([{ provider_id: OURS, data }]);
  expect(outcome).toMatchObject({ next: [] });
  expect(outcome.status).toBeUndefined();
  expect((await view(data.foreign_id)).status).toBe('cancelled');
});

test('a confirming payment is refused with 409 and a clear message; nothing is cancelled', async () => {
  const open = await session('guard_open_beside');
  const data = await confirming('guard_confirming');
  const outcome = await cancel([
    { provider_id: OURS, data: open },
    { provider_id: OURS, data },
  ]);
  expect(outcome.next).toBeUndefined();
  expect(outcome.status).toBe(409);
  expect(outcome.body).toEqual({
    type: 'not_allowed',
    message: `The customer's payment of invoice ${data.foreign_id} is confirming, so the order cannot be cancelled yet. Wait until it is paid, refund the payment, then cancel the order.`,
  });
  expect((await view(data.foreign_id)).status).toBe('confirming');
  // Every invoice is read before any is cancelled: the open one beside it is left as it was.
  expect((await view(open.foreign_id)).status).toBe('awaiting_payment');
});

test('a paid invoice is refused until what is left is refunded, then Medusa goes on', async () => {
  const data = await paid('guard_paid');
  const { refundable } = await view(data.foreign_id);
  const refused = await cancel([{ provider_id: OURS, data }]);
  expect(refused.next).toBeUndefined();
  expect(refused.status).toBe(409);
  expect(refused.body).toEqual({
    type: 'not_allowed',
    message: `The customer paid invoice ${data.foreign_id}, and it is not refunded: ${refundable.amount} EUR is left. Refund the payment first, then cancel the order.`,
  });

  // A part refunded is not enough: the rest is still the customer's.
  await provider.refundPayment({ amount: '1', data, context: { idempotency_key: 'guard_part' } });
  expect((await cancel([{ provider_id: OURS, data }])).status).toBe(409);
  const { refundable: left } = await view(data.foreign_id);
  await provider.refundPayment({ amount: left.amount, data, context: { idempotency_key: 'guard_rest' } });
  const allowed = await cancel([{ provider_id: OURS, data }]);
  expect(allowed).toMatchObject({ next: [] });
  expect(allowed.status).toBeUndefined();
});

test('ended invoices, other providers and cancelled orders pass without a change', async () => {
  const ended = await session('guard_ended');
  await provider.cancelPayment({ data: ended });
  const others = await session('guard_other_provider');
  expect(await cancel([{ provider_id: OURS, data: ended }])).toMatchObject({ next: [] });
  expect(await cancel([{ provider_id: 'pp_system_default', data: others }])).toMatchObject({ next: [] });
  // Another id of this provider is another store's: this guard leaves it alone.
  expect(await cancel([{ provider_id: 'pp_merchant-payments_eu', data: others }])).toMatchObject({
    next: [],
  });
  expect(await cancel([{ provider_id: OURS, data: others }], { status: 'canceled' })).toMatchObject({
    next: [],
  });
  expect((await view(others.foreign_id)).status).toBe('awaiting_payment');
});

test('an invoice the plugin does not know answers 409, and no other invoice of the order is cancelled', async () => {
  const open = await session('guard_beside_unknown');
  const unknown = { ...open, foreign_id: 'ms.guard_unknown.r1' };
  const outcome = await cancel([
    { provider_id: OURS, data: open },
    { provider_id: OURS, data: unknown },
  ]);
  expect(outcome.next).toBeUndefined();
  expect(outcome).toMatchObject({
    status: 409,
    body: {
      type: 'not_allowed',
      message: `The order was not cancelled: the payments plugin does not know invoice ${unknown.foreign_id}. Give the guard the options of the provider that made it.`,
    },
  });
  expect((await view(open.foreign_id)).status).toBe('awaiting_payment');
});

test('a plugin that cannot be reached answers 503, and Medusa never runs its cancel', async () => {
  const data = await session('guard_unreachable');
  // A port that was free a moment ago: nothing listens there.
  const closed = await listen(createServer(), 0);
  await closed.close();
  const outcome = await cancel([{ provider_id: OURS, data }], { apiUrl: closed.url });
  expect(outcome.next).toBeUndefined();
  expect(outcome.status).toBe(503);
  expect(outcome.body).toEqual({
    type: 'unexpected_state',
    message: expect.stringContaining(
      `The order was not cancelled: the payments plugin gave no usable answer about invoice ${data.foreign_id}.`,
    ),
  });
  expect(outcome.body.message).not.toContain(harness.stack.adminToken);
  expect((await view(data.foreign_id)).status).toBe('awaiting_payment');
});
