import {
  choosePayment,
  completeCart,
  confirmingCart,
  eventually,
  ordersByEmail,
  payInvoice,
  pluginInvoice,
  readyCart,
  webhookTaken,
} from './support/carts';
import { ITEM_PRICE, SHIPPING_PRICE } from './support/shop';
import { useShop } from './support/use-shop';

const shop = useShop();

/** Waits until the plugin's invoice reads `status` and Medusa has taken its event, then tries to complete the cart. */
async function endsWithoutOrder(cart: { id: string; email: string }, foreignId: string, status: string) {
  const view = await eventually(
    () => pluginInvoice(shop, foreignId),
    (read) => read.status === status,
  );
  expect(view.status).toBe(status);
  await webhookTaken(shop, foreignId, `invoice.${status}`);
  const completed = await completeCart(shop, cart.id);
  expect(completed.body.type).not.toBe('order');
  const cartNow = await shop.store('GET', `/store/carts/${cart.id}?fields=id,completed_at`);
  expect(cartNow.body.cart.completed_at).toBeNull();
  expect((await ordersByEmail(shop)).get(cart.email)).toBeUndefined();
}

describe('an invoice that ends without the money never becomes a paid order', () => {
  test.concurrent('expired, even when the customer pays late', async () => {
    const cart = await readyCart(shop, 'expired@shop.test');
    // The customer chose a coin, so the invoice has an address to pay late.
    const { data } = await choosePayment(shop, cart, { sender_currency: 'BTC' });
    expect(
      (await shop.plugin.control('POST', `/invoices/${encodeURIComponent(data.foreign_id)}/expire`)).status,
    ).toBe(200);
    await endsWithoutOrder(cart, data.foreign_id, 'expired');
    // A payment after the timer ran out is the payment service's to return: the invoice stays expired.
    await payInvoice(shop, data.foreign_id);
    await endsWithoutOrder(cart, data.foreign_id, 'expired');
  });

  test.concurrent('underpaid', async () => {
    const cart = await readyCart(shop, 'underpaid@shop.test');
    const { data } = await choosePayment(shop, cart);
    await payInvoice(shop, data.foreign_id, 'under');
    await endsWithoutOrder(cart, data.foreign_id, 'underpaid');
  });

  test.concurrent('cancelled in the plugin, even when the customer pays late', async () => {
    const cart = await readyCart(shop, 'cancelled@shop.test');
    const { data } = await choosePayment(shop, cart, { sender_currency: 'BTC' });
    const cancelled = await shop.plugin.api(
      'POST',
      `/invoices/${encodeURIComponent(data.foreign_id)}/cancel`,
      {
        token: 'admin',
      },
    );
    expect(cancelled.status).toBe(200);
    await endsWithoutOrder(cart, data.foreign_id, 'cancelled');
    await payInvoice(shop, data.foreign_id);
    await endsWithoutOrder(cart, data.foreign_id, 'cancelled');
  });
});

test.concurrent(
  'a cart whose amount changes after the payment started has one payable invoice, for the new amount',
  async () => {
    const cart = await readyCart(shop, 'changed@shop.test');
    const first = await choosePayment(shop, cart);
    expect(Number(first.data.amount)).toBe(ITEM_PRICE + SHIPPING_PRICE);

    const added = await shop.store('POST', `/store/carts/${cart.id}/line-items`, {
      variant_id: shop.variantId,
      quantity: 1,
    });
    expect(added.status).toBe(200);
    const second = await choosePayment(shop, cart);
    expect(Number(second.data.amount)).toBe(2 * ITEM_PRICE + SHIPPING_PRICE);
    expect(second.data.foreign_id).not.toBe(first.data.foreign_id);

    // The first invoice can take no payment; the second is the one to pay.
    const firstNow = await pluginInvoice(shop, first.data.foreign_id);
    expect(firstNow.status).toBe('cancelled');
    const secondNow = await pluginInvoice(shop, second.data.foreign_id);
    expect(secondNow.status).toBe('awaiting_payment');
    expect(Number(secondNow.amount)).toBe(2 * ITEM_PRICE + SHIPPING_PRICE);

    await payInvoice(shop, second.data.foreign_id);
    const orders = await eventually(
      () => ordersByEmail(shop),
      (found) => (found.get(cart.email) ?? []).length > 0,
    );
    expect(orders.get(cart.email)).toHaveLength(1);
    expect(orders.get(cart.email)![0].total).toBe(2 * ITEM_PRICE + SHIPPING_PRICE);
  },
);

test.concurrent(
  'a cart changed while its payment confirms is refused with a clear error, and the payment goes on',
  async () => {
    const { cart, data } = await confirmingCart(shop, 'changed-confirming@shop.test');

    const added = await shop.store('POST', `/store/carts/${cart.id}/line-items`, {
      variant_id: shop.variantId,
      quantity: 1,
    });
    // Medusa answers with its own words; the provider's reason is in Medusa's log, and nothing changed.
    expect(added.status).toBeGreaterThanOrEqual(400);
    expect(added.body.message).toBe('Could not delete all payment sessions');
    expect(shop.medusa.child.said(`The customer is paying invoice ${data.foreign_id}`)).toBe(true);
    const unchanged = await shop.store(
      'GET',
      `/store/carts/${cart.id}?fields=id,total,*items,*payment_collection.payment_sessions`,
    );
    expect(unchanged.body.cart.items).toHaveLength(1);
    expect(
      unchanged.body.cart.payment_collection.payment_sessions.map((one: any) => one.data.foreign_id),
    ).toEqual([data.foreign_id]);
    expect((await pluginInvoice(shop, data.foreign_id)).status).toBe('confirming');

    // The payment confirms and becomes the one order, for the cart as the customer paid it.
    expect(
      (await shop.plugin.control('POST', `/invoices/${encodeURIComponent(data.foreign_id)}/settle`)).status,
    ).toBe(200);
    const orders = await eventually(
      () => ordersByEmail(shop),
      (found) => (found.get(cart.email) ?? []).length > 0,
    );
    expect(orders.get(cart.email)).toHaveLength(1);
    expect(orders.get(cart.email)![0].total).toBe(ITEM_PRICE + SHIPPING_PRICE);
  },
);

describe('the plugin down or its answer lost while Medusa initiates the payment leaves no orphan invoice', () => {
  test.concurrent(
    'an answer lost once: the provider sends the checkout again under the same foreign_id',
    async () => {
      const email = 'initiate-lost@shop.test';
      const cart = await readyCart(shop, email);
      shop.pluginGate.fail(email, 'answer-lost', 1);
      const session = await choosePayment(shop, cart);
      expect(shop.pluginGate.checkouts(email)).toBe(2);

      const foreignId: string = session.data.foreign_id;
      const creates = await shop.plugin.upstreamRequests('/v2/invoices/create');
      const prefix = foreignId.slice(0, foreignId.lastIndexOf('.') + 1);
      expect(creates.filter((one) => one.body.includes(prefix))).toHaveLength(1);
      expect((await pluginInvoice(shop, foreignId)).status).toBe('awaiting_payment');
    },
  );

  test.concurrent(
    'down for every attempt: Medusa answers an error, and the customer trying again gets one invoice',
    async () => {
      const email = 'initiate-down@shop.test';
      const cart = await readyCart(shop, email);
      // The provider's default max_attempts is 4.
      shop.pluginGate.fail(email, 'down', 4);
      const refused = await choosePayment(shop, cart).then(
        () => undefined,
        (error: Error) => error,
      );
      expect(refused?.message).toContain('No payment session');
      expect(shop.pluginGate.checkouts(email)).toBe(4);

      const session = await choosePayment(shop, cart);
      expect(shop.pluginGate.checkouts(email)).toBe(5);
      expect((await pluginInvoice(shop, session.data.foreign_id)).status).toBe('awaiting_payment');
      await payInvoice(shop, session.data.foreign_id);
      const orders = await eventually(
        () => ordersByEmail(shop),
        (found) => (found.get(email) ?? []).length > 0,
      );
      expect(orders.get(email)).toHaveLength(1);
    },
  );
});
