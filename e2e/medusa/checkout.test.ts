import { choosePayment, eventually, ordersByEmail, payInvoice, readyCart } from './support/carts';
import { startShop, type Shop } from './support/shop';

let shop: Shop;

beforeAll(async () => {
  shop = await startShop();
});

afterAll(async () => {
  await shop?.close();
});

describe('a cart paid in the sandbox becomes exactly one order', () => {
  test('when only the webhook completes it', async () => {
    const email = 'webhook-only@shop.test';
    const cart = await readyCart(shop, email);
    const session = await choosePayment(shop, cart);
    await payInvoice(shop, session.data.foreign_id);

    const orders = await eventually(
      () => ordersByEmail(shop),
      (found) => (found.get(email) ?? []).length > 0,
    );
    expect(orders.get(email)).toHaveLength(1);
    const completed = await shop.store('GET', `/store/carts/${cart.id}?fields=id,completed_at`);
    expect(completed.body.cart.completed_at).not.toBeNull();
  });
});
