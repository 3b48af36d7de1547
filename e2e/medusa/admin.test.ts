import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import {
  choosePayment,
  completeCart,
  eventually,
  ordersByEmail,
  payInvoice,
  pluginInvoice,
  readyCart,
} from './support/carts';
import { useShop } from './support/use-shop';

const shop = useShop();

/** A cart paid in the sandbox and completed by the webhook: its order with its payments, and the invoice's id. */
async function paidOrder(email: string, data: Record<string, string> = {}) {
  const cart = await readyCart(shop, email);
  const session = await choosePayment(shop, cart, data);
  await payInvoice(shop, session.data.foreign_id);
  const found = await eventually(
    () => ordersByEmail(shop),
    (orders) => (orders.get(email) ?? []).length > 0,
  );
  expect(found.get(email)).toHaveLength(1);
  const order = await eventually(
    () => shop.admin('GET', `/admin/orders/${found.get(email)![0].id}?fields=*payment_collections.payments`),
    (read) => read.body.order?.payment_collections?.[0]?.payments?.[0]?.captured_at != null,
  );
  return { order: order.body.order, foreignId: session.data.foreign_id as string };
}

test.concurrent(
  'an Admin refund arrives as our order refund, with a claim link for the customer',
  async () => {
    const { order, foreignId } = await paidOrder('refund@shop.test');
    const payment = order.payment_collections[0].payments[0];

    const refunded = await shop.admin('POST', `/admin/payments/${payment.id}/refund`, { amount: 10 });
    expect(refunded.status).toBe(200);

    const read = await shop.admin('GET', `/admin/payments/${payment.id}?fields=id,data,*refunds`);
    expect(read.body.payment.refunds).toHaveLength(1);
    const ours = read.body.payment.data.refunds;
    expect(ours).toHaveLength(1);
    const refund = await shop.plugin.api('GET', `/refunds/${encodeURIComponent(ours[0].foreign_id)}`, {
      token: 'admin',
    });
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ invoice_foreign_id: foreignId });
    expect(Number(refund.body.debited_amount)).toBe(10);
    // Medusa has no address for the customer: the refund waits for the customer's claim.
    expect(refund.body.claim_url).toEqual(expect.any(String));
    expect(read.body.payment.data.claim_url).toBe(refund.body.claim_url);
  },
);

test.concurrent(
  'an Admin refund arrives as our order refund to the address the customer gave at checkout',
  async () => {
    const address = 'bc1qrefundaddress0000000000000000000000';
    const { order, foreignId } = await paidOrder('refund-address@shop.test', { refund_address: address });
    const payment = order.payment_collections[0].payments[0];

    const refunded = await shop.admin('POST', `/admin/payments/${payment.id}/refund`, { amount: 5 });
    expect(refunded.status).toBe(200);

    const read = await shop.admin('GET', `/admin/payments/${payment.id}?fields=id,data`);
    const refund = await shop.plugin.api(
      'GET',
      `/refunds/${encodeURIComponent(read.body.payment.data.refunds[0].foreign_id)}`,
      {
        token: 'admin',
      },
    );
    expect(refund.status).toBe(200);
    expect(refund.body).toMatchObject({ invoice_foreign_id: foreignId, address, claim_url: null });
    expect(Number(refund.body.debited_amount)).toBe(5);
  },
);

test.concurrent('a webhook with a bad signature sent to Medusa is refused and changes nothing', async () => {
  const email = 'forged@shop.test';
  const cart = await readyCart(shop, email);
  const session = await choosePayment(shop, cart);
  const invoice = await pluginInvoice(shop, session.data.foreign_id);
  const body = JSON.stringify({
    id: 'evt_forged',
    type: 'invoice.paid',
    created_at: new Date().toISOString(),
    data: { ...invoice, status: 'paid', final: true },
  });
  const forger = new Webhook(`whsec_${randomBytes(32).toString('base64')}`);
  const now = new Date();
  const signature = forger.sign('msg_forged', now, body);

  const answer = await shop.postWebhook(body, {
    'content-type': 'application/json',
    'webhook-id': 'msg_forged',
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': signature,
  });
  // Medusa takes every webhook and acts later: the provider refuses this one then.
  expect(answer.status).toBeLessThan(500);
  const refused = await eventually(
    async () => shop.medusa.child.said('does not verify with webhook_secret'),
    Boolean,
  );
  expect(refused).toBe(true);

  const cartNow = await shop.store('GET', `/store/carts/${cart.id}?fields=id,completed_at`);
  expect(cartNow.body.cart.completed_at).toBeNull();
  expect((await ordersByEmail(shop)).get(email)).toBeUndefined();
  expect((await pluginInvoice(shop, session.data.foreign_id)).status).toBe('awaiting_payment');
});

// Medusa 2.21.2 calls no provider method when an Admin cancels an order; these tests pin what a shop sees then.
describe('an Admin order cancel (Medusa 2.21.2 does not ask the provider)', () => {
  test.concurrent(
    'while the payment confirms: the order is cancelled, the invoice is not, and the payment still lands on it',
    async () => {
      const cart = await readyCart(shop, 'cancel-confirming@shop.test');
      const { data } = await choosePayment(shop, cart);
      const held = await shop.plugin.control('POST', `/invoices/${encodeURIComponent(data.foreign_id)}/pay`, {
        kind: 'full',
        hold: true,
      });
      expect(held.status).toBe(200);
      await eventually(
        () => pluginInvoice(shop, data.foreign_id),
        (view) => view.status === 'confirming',
      );
      // A confirming payment is pending_authorization: Medusa makes the order before the money is final.
      const completed = await completeCart(shop, cart.id);
      expect(completed.body.type).toBe('order');

      const cancelled = await shop.admin('POST', `/admin/orders/${completed.body.order.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.order.status).toBe('canceled');
      expect((await pluginInvoice(shop, data.foreign_id)).status).toBe('confirming');

      // The money arrives anyway: the shop sees it captured on the cancelled order, to refund.
      expect(
        (await shop.plugin.control('POST', `/invoices/${encodeURIComponent(data.foreign_id)}/settle`)).status,
      ).toBe(200);
      const order = await eventually(
        () => shop.admin('GET', `/admin/orders/${completed.body.order.id}?fields=id,status,payment_status`),
        (read) => read.body.order.payment_status === 'captured',
      );
      expect(order.body.order).toMatchObject({ status: 'canceled', payment_status: 'captured' });
      expect((await pluginInvoice(shop, data.foreign_id)).status).toBe('paid');
    },
  );

  test.concurrent(
    'once paid: Medusa counts a refund it never asked for, and the invoice stays paid',
    async () => {
      const { order, foreignId } = await paidOrder('cancel-paid@shop.test');
      const cancelled = await shop.admin('POST', `/admin/orders/${order.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.order.status).toBe('canceled');
      const payment = cancelled.body.order.payment_collections[0].payments[0];
      expect(payment.refunds).toEqual([]);
      expect(payment.data.refunds).toBeUndefined();
      expect((await pluginInvoice(shop, foreignId)).status).toBe('paid');
    },
  );
});
