import {
  choosePayment,
  completeCart,
  eventually,
  inTurns,
  ordersByEmail,
  payInvoice,
  pluginInvoice,
  readyCart,
  webhookTaken,
} from './support/carts';
import { useShop } from './support/use-shop';

const shop = useShop();

/** Medusa 2.21.2 processes a webhook this long after it answers it (medusa-config.js). */
const MEDUSA_WEBHOOK_DELAY_MS = 5_000;

/** Waits until every e-mail address in `emails` has an order, and answers the orders of all. */
async function ordersFor(emails: string[]) {
  return eventually(
    () => ordersByEmail(shop),
    (found) => emails.every((email) => (found.get(email) ?? []).length > 0),
  );
}

describe('a cart paid in the sandbox becomes exactly one order', () => {
  test.concurrent('when only the webhook completes it', async () => {
    const email = 'webhook-only@shop.test';
    const cart = await readyCart(shop, email);
    const session = await choosePayment(shop, cart);
    await payInvoice(shop, session.data.foreign_id);

    const orders = await ordersFor([email]);
    expect(orders.get(email)).toHaveLength(1);
    const completed = await shop.store('GET', `/store/carts/${cart.id}?fields=id,completed_at`);
    expect(completed.body.cart.completed_at).not.toBeNull();
    // The storefront coming back late finds the same order.
    const late = await completeCart(shop, cart.id);
    expect(late.body.type).toBe('order');
    expect(late.body.order.id).toBe(orders.get(email)![0].id);
    expect((await ordersByEmail(shop)).get(email)).toHaveLength(1);
  });

  test.concurrent('when only the storefront completes it', async () => {
    const email = 'storefront-only@shop.test';
    const cart = await readyCart(shop, email);
    const session = await choosePayment(shop, cart);
    const foreignId = session.data.foreign_id;
    shop.gate.hold(foreignId);
    await payInvoice(shop, foreignId);
    expect(
      (
        await eventually(
          () => pluginInvoice(shop, foreignId),
          (view) => view.status === 'paid',
        )
      ).status,
    ).toBe('paid');

    const completed = await completeCart(shop, cart.id);
    expect(completed.body.type).toBe('order');
    expect((await ordersByEmail(shop)).get(email)).toHaveLength(1);

    // The held webhook arrives after the order: it makes no second one.
    shop.gate.open(foreignId);
    await webhookTaken(shop, foreignId, 'invoice.paid');
    const orders = (await ordersByEmail(shop)).get(email)!;
    expect(orders).toHaveLength(1);
    expect(orders[0].id).toBe(completed.body.order.id);
  });

  test.concurrent('when the webhook and the storefront race, for 50 paid carts', async () => {
    const paid = Array.from({ length: 50 }, (_, index) => `race-paid-${index}@shop.test`);
    const unpaid = Array.from({ length: 3 }, (_, index) => `race-unpaid-${index}@shop.test`);
    const carts = new Map<string, { id: string; foreignId: string }>();
    // A few carts at a time keep Medusa busy without queueing every request behind the others.
    await inTurns([...paid, ...unpaid], 5, async (email) => {
      const cart = await readyCart(shop, email);
      const session = await choosePayment(shop, cart);
      carts.set(email, { id: cart.id, foreignId: session.data.foreign_id });
    });

    // Each paid cart: the customer pays, and the storefront completes twice at once while the webhook comes in.
    const answers = await Promise.all(
      paid.map(async (email) => {
        const { id, foreignId } = carts.get(email)!;
        await payInvoice(shop, foreignId);
        await eventually(
          () => pluginInvoice(shop, foreignId),
          (view) => view.status === 'paid',
        );
        return Promise.all([completeCart(shop, id), completeCart(shop, id)]);
      }),
    );
    const unpaidAnswers = await Promise.all(unpaid.map((email) => completeCart(shop, carts.get(email)!.id)));

    const orders = await ordersFor(paid);
    for (const email of paid)
      expect({ email, orders: orders.get(email)!.length }).toEqual({ email, orders: 1 });
    for (const email of unpaid)
      expect({ email, orders: orders.get(email)?.length ?? 0 }).toEqual({ email, orders: 0 });
    // A storefront that got an order got the one order of its cart.
    paid.forEach((email, index) => {
      for (const answer of answers[index]) {
        if (answer.body.type === 'order') expect(answer.body.order.id).toBe(orders.get(email)![0].id);
      }
    });
    for (const answer of unpaidAnswers) expect(answer.body.type).not.toBe('order');
    // Once every paid event is taken and Medusa has had time to process it, still one order each.
    for (const email of paid) await webhookTaken(shop, carts.get(email)!.foreignId, 'invoice.paid');
    await new Promise((resolve) => setTimeout(resolve, MEDUSA_WEBHOOK_DELAY_MS + 3_000));
    const settled = await ordersByEmail(shop);
    for (const email of paid)
      expect({ email, orders: settled.get(email)!.length }).toEqual({ email, orders: 1 });
    for (const email of unpaid) expect(settled.get(email)).toBeUndefined();
  });
});
