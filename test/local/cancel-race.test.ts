// A cancel never strands a payment (issue 29, problems 1 and 2): the cancel asks the payment service first, money
// that still lands on a cancelled invoice is shown and refundable, and "paid" needs what was due.
import { Decimal } from 'decimal.js';
import { invoiceCallbackBody, postCallback, signedHeaders } from '../support/callbacks';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
let callbacks: { url: string; retry_ms: number[] };
beforeAll(async () => {
  output = captureOutput(); // refused cancels log warnings; keep the run quiet
  harness = await startHarness();
  const { url, retry_ms } = (await harness.control('POST', '/callbacks', {})).body;
  callbacks = { url, retry_ms };
});
afterAll(async () => {
  await harness.close();
  output.restore();
});
afterEach(async () => {
  await harness.control('POST', '/callbacks', callbacks);
});

/** The service's callbacks are slow: none arrives until `deliver`, then the ones held back arrive in order. */
async function slowCallbacks() {
  await harness.control('POST', '/callbacks', {
    url: 'http://127.0.0.1:9/callbacks',
    retry_ms: Array(120).fill(250),
  });
  return { deliver: () => harness.control('POST', '/callbacks', { url: callbacks.url }) };
}

/** Generous for a loaded machine; each wait ends as soon as the callbacks have arrived. */
const CALLBACKS_MS = 30_000;
const ADDRESS = 'bc1qrefundaddress0000000000000000000000';
const admin = { token: 'admin' } as const;

async function checkout(foreignId: string) {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId, { timer: true }),
  });
  expect(created.status).toBe(201);
  return created.body;
}

const view = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
const cancel = (foreignId: string) => harness.api('POST', `/invoices/${foreignId}/cancel`, admin);
const sandboxInvoice = async (foreignId: string) =>
  (await harness.control('GET', `/invoices/${foreignId}`)).body;

/** A small seeded generator (mulberry32): the same moments on every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('a payment the service is confirming, though our record has not heard of it, refuses the cancel and sends none', async () => {
  await checkout('race-confirming');
  await slowCallbacks();
  const held = await harness.control('POST', '/invoices/race-confirming/pay', { kind: 'full', hold: true });
  expect(held.body.status).toBe('processing');
  expect((await view('race-confirming')).status).toBe('awaiting_payment');

  const answer = await cancel('race-confirming');

  expect(answer.status).toBe(409);
  expect(answer.body.error.code).toBe('payment_confirming');
  expect(await harness.upstreamRequests('/v2/invoices/race-confirming/cancel/')).toEqual([]);
  expect((await sandboxInvoice('race-confirming')).status).toBe('processing');
  expect(await view('race-confirming')).toMatchObject({ status: 'confirming' });
});

test('money that lands as the cancel goes through is shown, flagged and refundable up to what was credited', async () => {
  await checkout('race-landed');
  const slow = await slowCallbacks();
  // The lookup sees the invoice unpaid; the payment is seen before the cancel reaches the service, which takes it.
  await harness.control('POST', '/faults', {
    path: '/v2/transactions/info',
    kind: 'delay',
    delay_ms: 300,
    times: 1,
  });
  const cancelling = cancel('race-landed');
  await waitFor(
    () => harness.upstreamRequests('/v2/transactions/info'),
    (requests) => requests.some((request) => (request as { fault?: string }).fault === 'delay'),
    CALLBACKS_MS,
  );
  await harness.control('POST', '/invoices/race-landed/pay', { kind: 'full', hold: true });
  const cancelled = await cancelling;
  expect(cancelled.status).toBe(200);
  await slow.deliver();
  const credited = await harness.control('POST', '/invoices/race-landed/settle');
  expect(credited.body).toMatchObject({ status: 'failed', credited_amount: expect.any(String) });

  const shown = await waitFor(
    () => view('race-landed'),
    (body) => body.net_amount === credited.body.credited_amount,
    CALLBACKS_MS,
  );
  expect(shown).toMatchObject({
    status: 'cancelled',
    exception: 'paid_late',
    paid_amount: credited.body.paid_amount,
    net_amount: credited.body.credited_amount,
    refundable: { amount: credited.body.credited_amount, currency: 'EUR' },
  });
  const refund = await harness.api('POST', '/invoices/race-landed/refunds', {
    ...admin,
    body: { foreign_id: 'race-landed-r', address: ADDRESS },
  });
  expect(refund.status).toBe(201);
  expect(refund.body.debited_amount).toBe(credited.body.credited_amount);
});

test('50 orders whose cancel races the payment at random moments: every credit is shown and refundable', async () => {
  const random = seeded(29);
  const orders = Array.from({ length: 50 }, (_, index) => `race-${index}`);
  const outcomes: Record<string, number> = {};
  const race = async (foreignId: string) => {
    await checkout(foreignId);
    // A third each: the cancel first, the payment first, and the two at random moments. So both endings occur
    // however busy the machine is; where a racing pair ends is up to the machine, and every ending must hold.
    const order = random();
    // The cancel goes through our API and the payment straight to the service, so the payment waits longer.
    const [payWait, settleWait, cancelWait] = [random() * 200, random() * 50, random() * 40];
    const pay = async () => {
      await sleep(payWait);
      const paid = await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full', hold: true });
      expect(paid.status).toBe(200);
      await sleep(settleWait);
      expect((await harness.control('POST', `/invoices/${foreignId}/settle`)).status).toBe(200);
    };
    const cancelNow = async () => {
      await sleep(cancelWait);
      const answer = await cancel(foreignId);
      outcomes[answer.status] = (outcomes[answer.status] ?? 0) + 1;
      expect([200, 409]).toContain(answer.status);
    };
    if (order < 1 / 3) {
      await cancelNow();
      await pay();
    } else if (order < 2 / 3) {
      await pay();
      await cancelNow();
    } else {
      await Promise.all([pay(), cancelNow()]);
    }
  };
  for (let at = 0; at < orders.length; at += 10) {
    const slow = await slowCallbacks();
    await Promise.all(orders.slice(at, at + 10).map(race));
    await slow.deliver();
  }

  let cancelledWithMoney = 0;
  for (const foreignId of orders) {
    const upstream = await sandboxInvoice(foreignId);
    expect(upstream.credited_amount).not.toBeNull();
    const shown = await waitFor(
      () => view(foreignId),
      (body) => body.net_amount === upstream.credited_amount && body.paid_amount === upstream.paid_amount,
      CALLBACKS_MS,
    );
    expect(shown).toMatchObject({ net_amount: upstream.credited_amount, paid_amount: upstream.paid_amount });
    if (shown.status === 'cancelled') cancelledWithMoney++;
    if (shown.status === 'cancelled') expect(shown.exception).toBe('paid_late');
    else expect(shown).toMatchObject({ status: 'paid', exception: null });
    expect(shown.refundable).toEqual({ amount: shown.net_amount, currency: 'EUR' });

    const refund = await harness.api('POST', `/invoices/${foreignId}/refunds`, {
      ...admin,
      body: { foreign_id: `${foreignId}-r`, debited_amount: upstream.credited_amount, address: ADDRESS },
    });
    expect(refund.status).toBe(201);
  }
  // Both kinds of ending: cancels refused for a payment seen, and cancels the money came after.
  expect(outcomes[200]).toBeGreaterThan(0);
  expect(cancelledWithMoney).toBe(outcomes[200]);
  expect(outcomes[409]).toBeGreaterThan(0);
}, 120_000);

test('confirmed with half of what was due reads underpaid, and the order route refunds none of it', async () => {
  const created = await checkout('race-half');
  const half = new Decimal(created.pay_amount).div(2).toFixed(8);
  const upstream = (await harness.control('GET', '/invoices/race-half')).body;
  for (const status of ['processing', 'confirmed']) {
    const body = invoiceCallbackBody('race-half', status, {
      id: upstream.id,
      currency_sent: { currency: 'BTC', amount: Number(half) },
      currency_received: { currency: 'EUR', amount: status === 'confirmed' ? 12.75 : 0 },
    });
    expect((await postCallback(harness, body, signedHeaders(harness, body))).status).toBe(200);
  }

  expect(await view('race-half')).toMatchObject({
    status: 'underpaid',
    exception: null,
    final: true,
    paid_amount: half,
    refundable: null,
  });
  const refund = await harness.api('POST', '/invoices/race-half/refunds', {
    ...admin,
    body: { foreign_id: 'race-half-r', address: ADDRESS },
  });
  expect(refund.status).toBe(409);
  expect(refund.body.error.code).toBe('invoice_not_refundable');
});
