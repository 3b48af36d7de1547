import type { Shop } from './shop';
import { PROVIDER_ID } from './shop';

/** A cart with one item, an address and shipping, for a customer whose e-mail address names it in the tests. */
export async function readyCart(shop: Shop, email: string, quantity = 1): Promise<any> {
  const created = await shop.store('POST', '/store/carts', {
    region_id: shop.regionId,
    sales_channel_id: shop.salesChannelId,
    email,
    items: [{ variant_id: shop.variantId, quantity }],
    shipping_address: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      address_1: 'Hauptstr. 1',
      city: 'Berlin',
      postal_code: '10115',
      country_code: 'de',
    },
  });
  expect(created.status).toBe(200);
  const cartId = created.body.cart.id;
  const shipped = await shop.store('POST', `/store/carts/${cartId}/shipping-methods`, {
    option_id: shop.shippingOptionId,
  });
  expect(shipped.status).toBe(200);
  return shipped.body.cart;
}

/**
 * Chooses our provider for the cart, as the storefront's checkout does: answers the payment session. Medusa gives a
 * provider no customer for a guest's cart, so the storefront passes the cart's e-mail address in the session's data.
 */
export async function choosePayment(
  shop: Shop,
  cart: { id: string; email: string },
  data: Record<string, string> = {},
): Promise<any> {
  const cartId = cart.id;
  const collection = await shop.store('POST', '/store/payment-collections', { cart_id: cartId });
  expect(collection.status).toBe(200);
  const session = await shop.store(
    'POST',
    `/store/payment-collections/${collection.body.payment_collection.id}/payment-sessions`,
    { provider_id: PROVIDER_ID, data: { email: cart.email, ...data } },
  );
  if (session.status !== 200) throw new Error(`No payment session: ${JSON.stringify(session.body)}`);
  const sessions = session.body.payment_collection.payment_sessions;
  expect(sessions).toHaveLength(1);
  return sessions[0];
}

/** The sandbox's customer pays the session's invoice (`full`, or `under` for too little). */
export async function payInvoice(shop: Shop, foreignId: string, kind: 'full' | 'under' = 'full') {
  const paid = await shop.plugin.control('POST', `/invoices/${encodeURIComponent(foreignId)}/pay`, { kind });
  if (paid.status !== 200)
    throw new Error(`The sandbox did not pay ${foreignId}: ${JSON.stringify(paid.body)}`);
}

/** A cart whose customer has paid in full and whose payment is held confirming in the sandbox, with its session's data. */
export async function confirmingCart(shop: Shop, email: string): Promise<{ cart: any; data: any }> {
  const cart = await readyCart(shop, email);
  const { data } = await choosePayment(shop, cart);
  const held = await shop.plugin.control('POST', `/invoices/${encodeURIComponent(data.foreign_id)}/pay`, {
    kind: 'full',
    hold: true,
  });
  expect(held.status).toBe(200);
  const view = await eventually(
    () => pluginInvoice(shop, data.foreign_id),
    (read) => read.status === 'confirming',
  );
  expect(view.status).toBe('confirming');
  return { cart, data };
}

/** The storefront's last step: answers Medusa's `{type: 'order', order}` or `{type: 'cart', cart, error}`. */
export async function completeCart(shop: Shop, cartId: string) {
  return shop.store('POST', `/store/carts/${cartId}/complete`);
}

/**
 * One page of the shop's orders. Medusa 2.21.2 sometimes answers this list 500 while other carts become orders at
 * the same moment; a read changes nothing, so it is asked again.
 */
async function readOrders(shop: Shop, offset: number) {
  const route = `/admin/orders?fields=id,email,status,payment_status,total,*payment_collections&limit=100&offset=${offset}`;
  for (let attempt = 1; ; attempt++) {
    const page = await shop.admin('GET', route);
    if (page.status === 200) return page;
    if (page.status < 500 || attempt >= 5)
      throw new Error(`Medusa did not list its orders: ${page.status} ${JSON.stringify(page.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Every order in the shop, counted by the e-mail address that names its cart. */
export async function ordersByEmail(shop: Shop): Promise<Map<string, any[]>> {
  const found = new Map<string, any[]>();
  for (let offset = 0; ; offset += 100) {
    const page = await readOrders(shop, offset);
    for (const order of page.body.orders) found.set(order.email, [...(found.get(order.email) ?? []), order]);
    if (offset + 100 >= page.body.count) return found;
  }
}

/** Polls until `done` holds or the generous deadline passes, and answers the last value either way. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 120_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** The plugin's view of an invoice, as the shop's storefront token reads it. */
export async function pluginInvoice(shop: Shop, foreignId: string): Promise<any> {
  const read = await shop.plugin.api('GET', `/invoices/${encodeURIComponent(foreignId)}`, {
    token: 'storefront',
  });
  expect(read.status).toBe(200);
  return read.body;
}

/** Resolves once Medusa has answered 2xx to one of our events for the invoice (`type`, or any). */
export async function webhookTaken(shop: Shop, foreignId: string, type?: string) {
  const taken = () =>
    shop.gate.deliveries.some(
      (one) =>
        one.foreignId === foreignId && (!type || one.type === type) && one.status >= 200 && one.status < 300,
    );
  await eventually(async () => taken(), Boolean);
  expect(taken()).toBe(true);
}

/** Runs `task` for each item, `width` at a time, and answers the results in the items' order. */
export async function inTurns<T, R>(items: T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return results;
}
