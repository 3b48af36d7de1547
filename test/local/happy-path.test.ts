import { checkoutBody, startHarness, type Harness } from '../support/local-stack';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

async function waitFor<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

test('checkout with timer and sender_currency, payment, signed callback, poll shows paid', async () => {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody('happy-1', { timer: true }),
  });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    foreign_id: 'happy-1',
    status: 'awaiting_payment',
    pay_currency: 'BTC',
  });
  expect(created.body.pay_address).toEqual(expect.any(String));
  expect(created.body.pay_amount).toMatch(/^\d+\.\d{8}$/);
  expect(created.body.seconds_left).toBeGreaterThan(0);

  const polled = await harness.api('GET', '/invoices/happy-1', { token: 'storefront' });
  expect(polled.status).toBe(200);
  expect(polled.body.status).toBe('awaiting_payment');

  const paid = await harness.control('POST', '/invoices/happy-1/pay', { kind: 'full' });
  expect(paid.status).toBe(200);

  const confirmed = await waitFor(
    () => harness.api('GET', '/invoices/happy-1', { token: 'storefront' }),
    (answer) => answer.body.status === 'paid',
  );
  expect(confirmed.body).toMatchObject({ status: 'paid', final: true, exception: null, seconds_left: null });
  expect(confirmed.body.history.map((change: { service_status: string }) => change.service_status)).toEqual([
    'pending',
    'processing',
    'confirmed',
  ]);
});
