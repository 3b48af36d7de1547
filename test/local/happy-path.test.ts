// Written as a store would write it: with the typed client made from openapi.json (client/api.ts).
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // the refusal below logs a warning; keep the run quiet
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

test('checkout with timer and sender_currency, payment, signed callback, poll shows paid', async () => {
  const shop = harness.client('storefront');
  const poll = () => shop.GET('/invoices/{foreign_id}', { params: { path: { foreign_id: 'happy-1' } } });

  const created = await shop.POST('/checkout', { body: checkoutBody('happy-1', { timer: true }) });
  expect(created.response.status).toBe(201);
  expect(created.data).toMatchObject({
    foreign_id: 'happy-1',
    status: 'awaiting_payment',
    pay_currency: 'BTC',
    // README: null until the payment is confirmed.
    net_amount: null,
    net_currency: null,
  });
  expect(created.data?.pay_address).toEqual(expect.any(String));
  expect(created.data?.pay_amount).toMatch(/^\d+\.\d{8}$/);
  expect(created.data?.seconds_left).toBeGreaterThan(0);

  const polled = await poll();
  expect(polled.response.status).toBe(200);
  expect(polled.data?.status).toBe('awaiting_payment');

  const paid = await harness.control('POST', '/invoices/happy-1/pay', { kind: 'full' });
  expect(paid.status).toBe(200);

  const confirmed = await waitFor(poll, ({ data }) => data?.status === 'paid');
  expect(confirmed.data).toMatchObject({ status: 'paid', final: true, exception: null, seconds_left: null });
  expect(confirmed.data?.history.map((change) => change.service_status)).toEqual([
    'pending',
    'processing',
    'confirmed',
  ]);
});

test('a refusal arrives typed as the error body, naming the field', async () => {
  const { data, error, response } = await harness.client('storefront').POST('/checkout', {
    body: checkoutBody('happy-2', { currency: 'eur' }),
  });
  expect(response.status).toBe(400);
  expect(data).toBeUndefined();
  expect(error).toMatchObject({
    error: { code: 'invalid_request', fields: { currency: expect.any(String) } },
  });
});
