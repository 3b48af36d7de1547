// Refunds the customer claims through a link, through the whole local stack: the amount is reserved on the order
// when the link is made, the withdrawal is sent once the customer's address comes, however often it comes.
import { Decimal } from 'decimal.js';
import { checkoutBody, paidOrder, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // refusals log warnings; keep the run quiet
  harness = await startHarness();
}, 60_000);
afterAll(async () => {
  await harness.close();
  output.restore();
});

const ADDRESS = 'bc1qclaimaddress00000000000000000000000';
const WITHDRAWALS = '/v2/crypto/withdrawal_instant_exchange';
const admin = { token: 'admin' } as const;

/** The refund and its token, read from the claim URL's fragment as the claim page reads it. */
function linkOf(claimUrl: string): { foreignId: string; token: string } {
  const fragment = new URL(claimUrl).hash.slice(1);
  const [foreignId, token] = fragment.split('/');
  return { foreignId: foreignId!, token: token! };
}

const readClaim = (foreignId: string, token: string) =>
  harness.api('GET', `/public/refund-claims/${foreignId}`, { headers: { 'x-claim-token': token } });

const giveAddress = (foreignId: string, token: string, address = ADDRESS) =>
  harness.api('POST', `/public/refund-claims/${foreignId}`, {
    headers: { 'x-claim-token': token },
    body: { address },
  });

async function withdrawalsSent(foreignId: string): Promise<number> {
  const requests = await harness.upstreamRequests(WITHDRAWALS);
  return requests.filter(
    (request) => JSON.parse(request.body).foreign_id === foreignId && request.status < 300,
  ).length;
}

async function openClaim(order: string, refund: string, body: Record<string, unknown> = {}) {
  const made = await harness.api('POST', `/invoices/${order}/refunds`, {
    ...admin,
    body: { foreign_id: refund, ...body },
  });
  expect(made.status).toBe(201);
  return made;
}

test('a refund without an address waits for its customer, its amount reserved, its link given again on a repeat', async () => {
  const order = await paidOrder(harness, 'claim-open');
  const made = await openClaim('claim-open', 'claim-open-r1', { debited_amount: '5.00' });
  expect(made.body).toMatchObject({
    foreign_id: 'claim-open-r1',
    status: 'awaiting_claim',
    final: false,
    address: null,
    debited_amount: '5.00000000',
    debited_currency: 'EUR',
    currency: 'BTC',
    transaction_id: null,
  });
  expect(made.body.claim_url).toMatch(/\/claim\/#claim-open-r1\/rc_/);
  expect(Date.parse(made.body.claim_expires_at) - Date.now()).toBeGreaterThan(29 * 86_400_000);
  // The token is in the fragment only: no log or referrer sees it.
  expect(new URL(made.body.claim_url).search).toBe('');

  const again = await harness.api('POST', '/invoices/claim-open/refunds', {
    ...admin,
    body: { foreign_id: 'claim-open-r1', debited_amount: '5.00' },
  });
  expect([again.status, again.body.claim_url]).toEqual([200, made.body.claim_url]);
  const read = await harness.api('GET', '/refunds/claim-open-r1', admin);
  expect(read.body.claim_url).toBe(made.body.claim_url);

  const view = await harness.api('GET', '/invoices/claim-open', { token: 'storefront' });
  expect(view.body.refundable.amount).toBe(new Decimal(order.net_amount).minus('5').toFixed(8));
  expect(await withdrawalsSent('claim-open-r1')).toBe(0);
});

test('the claim page reads the store name and amount with the token alone; any other token is a 404', async () => {
  await paidOrder(harness, 'claim-read');
  const made = await openClaim('claim-read', 'claim-read-r1');
  const { foreignId, token } = linkOf(made.body.claim_url);
  const read = await readClaim(foreignId, token);
  expect(read.status).toBe(200);
  expect(read.body).toEqual({
    store_name: null,
    travel_rule: 'optional',
    status: 'awaiting_claim',
    final: false,
    failure_message: null,
    debited_amount: made.body.debited_amount,
    debited_currency: 'EUR',
    currency: 'BTC',
    amount: null,
    address: null,
    expires_at: made.body.claim_expires_at,
  });
  expect(read.headers.get('cache-control')).toBe('no-store');

  const wrong = [`${token.slice(0, -2)}xx`, 'rc_', '', token.toUpperCase()];
  for (const guess of wrong) {
    const answer = await readClaim(foreignId, guess);
    expect([answer.status, answer.body.error.code]).toEqual([404, 'not_found']);
  }
  const missing = await harness.api('GET', `/public/refund-claims/${foreignId}`);
  expect(missing.status).toBe(404);
  // Another refund's token opens only its own refund.
  await paidOrder(harness, 'claim-read-2');
  const other = linkOf((await openClaim('claim-read-2', 'claim-read-2-r1')).body.claim_url);
  expect((await readClaim(foreignId, other.token)).status).toBe(404);
  // A refund made with its address has no link at all.
  expect((await readClaim('no-such-refund', token)).status).toBe(404);
});

test('the withdrawal is sent once across a double submit, a second tab and a retry; another address is refused', async () => {
  await paidOrder(harness, 'claim-once');
  const made = await openClaim('claim-once', 'claim-once-r1');
  const { foreignId, token } = linkOf(made.body.claim_url);

  const [first, second] = await Promise.all([giveAddress(foreignId, token), giveAddress(foreignId, token)]);
  for (const answer of [first, second]) {
    // One sends; the other finds it sending or sent, or is asked to wait.
    expect(answer.status === 200 || answer.body?.error?.code === 'in_progress').toBe(true);
  }
  const retried = await waitFor(
    () => giveAddress(foreignId, token),
    (answer) => answer.status === 200 && answer.body.status !== 'sending',
    30_000,
  );
  expect(retried.body).toMatchObject({ status: 'processing', address: ADDRESS, failure_message: null });
  expect(retried.body.amount).toMatch(/^\d+\.\d{8}$/);
  expect(await withdrawalsSent('claim-once-r1')).toBe(1);

  const refund = await harness.api('GET', '/refunds/claim-once-r1', admin);
  expect(refund.body).toMatchObject({ status: 'processing', address: ADDRESS, claim_url: null });

  const another = await giveAddress(foreignId, token, 'bc1qanotheraddress000000000000000000000');
  expect([another.status, another.body.error.code]).toEqual([409, 'claim_taken']);
  // The store's repeat of its request answers the refund as it now is, and sends nothing more.
  const repeat = await harness.api('POST', '/invoices/claim-once/refunds', {
    ...admin,
    body: { foreign_id: 'claim-once-r1' },
  });
  expect([repeat.status, repeat.body.status]).toEqual([200, 'processing']);
  expect(await withdrawalsSent('claim-once-r1')).toBe(1);
});

test('an address the payment service refuses leaves the claim open, with its words, and the amount reserved', async () => {
  const order = await paidOrder(harness, 'claim-refused');
  const made = await openClaim('claim-refused', 'claim-refused-r1');
  const { foreignId, token } = linkOf(made.body.claim_url);

  const refused = await giveAddress(foreignId, token, 'invalid-address-0000');
  expect(refused.status).toBe(200);
  expect(refused.body).toMatchObject({ status: 'awaiting_claim', final: false, address: null });
  expect(refused.body.failure_message).toMatch(/address/i);
  const view = await harness.api('GET', '/invoices/claim-refused', { token: 'storefront' });
  expect(view.body.refundable.amount).toBe('0.00000000');

  const sent = await giveAddress(foreignId, token);
  expect(sent.body).toMatchObject({ status: 'processing', address: ADDRESS, failure_message: null });
  expect(await withdrawalsSent('claim-refused-r1')).toBe(1);
  expect(order.net_amount).toBe(sent.body.debited_amount);
});

test("a refusal of what the customer did not give (the account's balance) ends the claim's refund, released", async () => {
  const order = await paidOrder(harness, 'claim-broke');
  const made = await openClaim('claim-broke', 'claim-broke-r1', { debited_amount: '5.00' });
  const { foreignId, token } = linkOf(made.body.claim_url);
  const balances = (await harness.control('GET', '/balances')).body.data as Array<{
    currency: string;
    balance: string;
  }>;
  const before = balances.find((entry) => entry.currency === order.net_currency)!.balance;
  await harness.control('POST', '/balances', { currency: order.net_currency, balance: '0' });
  try {
    const ended = await giveAddress(foreignId, token);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ status: 'rejected', final: true });
    expect(ended.body.failure_message).toBeNull(); // the customer's page never tells the store's balance
  } finally {
    await harness.control('POST', '/balances', { currency: order.net_currency, balance: before });
  }
  const refund = await harness.api('GET', '/refunds/claim-broke-r1', admin);
  expect(refund.body).toMatchObject({ status: 'rejected', final: true });
  expect(refund.body.failure_message).toMatch(/funds/i);
  const view = await harness.api('GET', '/invoices/claim-broke', { token: 'storefront' });
  expect(view.body.refundable.amount).toBe(order.net_amount);
  const again = await giveAddress(foreignId, token);
  expect([again.status, again.body.status]).toEqual([200, 'rejected']);
  expect(await withdrawalsSent('claim-broke-r1')).toBe(0);
});

test('a customer names a person or a company as receiver, never self; a refusal writes nothing', async () => {
  await paidOrder(harness, 'claim-self');
  const made = await openClaim('claim-self', 'claim-self-r1', { debited_amount: '1.00' });
  const { foreignId, token } = linkOf(made.body.claim_url);
  const refused = await harness.api('POST', `/public/refund-claims/${foreignId}`, {
    headers: { 'x-claim-token': token },
    body: { address: ADDRESS, receiver: { type: 'self' } },
  });
  expect([refused.status, Object.keys(refused.body.error.fields)]).toEqual([400, ['receiver.type']]);
  expect((await readClaim(foreignId, token)).body).toMatchObject({ status: 'awaiting_claim', address: null });
  expect(await withdrawalsSent('claim-self-r1')).toBe(0);
});

test('the store cancels an open claim: it takes no address, and its amount is refundable again', async () => {
  const order = await paidOrder(harness, 'claim-cancel');
  const made = await openClaim('claim-cancel', 'claim-cancel-r1');
  const { foreignId, token } = linkOf(made.body.claim_url);

  const cancelled = await harness.api('POST', '/refunds/claim-cancel-r1/cancel-claim', admin);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ status: 'claim_cancelled', final: true, claim_url: null });
  const again = await harness.api('POST', '/refunds/claim-cancel-r1/cancel-claim', admin);
  expect([again.status, again.body.status]).toEqual([200, 'claim_cancelled']);

  const view = await harness.api('GET', '/invoices/claim-cancel', { token: 'storefront' });
  expect(view.body.refundable.amount).toBe(order.net_amount);
  expect(view.body.refunds.map((entry: { status: string }) => entry.status)).toEqual(['claim_cancelled']);
  const late = await giveAddress(foreignId, token);
  expect([late.status, late.body.error.code]).toEqual([409, 'claim_closed']);
  expect((await readClaim(foreignId, token)).body.status).toBe('claim_cancelled');
  expect(await withdrawalsSent('claim-cancel-r1')).toBe(0);

  // A claimed refund cannot be cancelled this way.
  await paidOrder(harness, 'claim-cancel-2');
  const sentLink = linkOf((await openClaim('claim-cancel-2', 'claim-cancel-2-r1')).body.claim_url);
  expect((await giveAddress(sentLink.foreignId, sentLink.token)).status).toBe(200);
  const refused = await harness.api('POST', '/refunds/claim-cancel-2-r1/cancel-claim', admin);
  expect([refused.status, refused.body.error.code]).toEqual([409, 'claim_closed']);
});

test('open claims and direct refunds at once never take more than the order netted', async () => {
  const order = await paidOrder(harness, 'claim-bound');
  const quarter = new Decimal(order.net_amount).div(4).toFixed(2, Decimal.ROUND_DOWN);
  const asks = Array.from({ length: 8 }, (_, index) =>
    harness.api('POST', '/invoices/claim-bound/refunds', {
      ...admin,
      body: {
        foreign_id: `claim-bound-r${index}`,
        debited_amount: quarter,
        ...(index % 2 === 0 ? {} : { address: ADDRESS }),
      },
    }),
  );
  const answers = await Promise.all(asks);
  const made = answers.filter((answer) => answer.status === 201);
  for (const answer of answers.filter((one) => one.status !== 201)) {
    expect(answer.body.error.code).toMatch(/^(refund_exceeds_refundable|in_progress)$/);
  }
  expect(made.length).toBeLessThanOrEqual(4);
  const view = await harness.api('GET', '/invoices/claim-bound', { token: 'storefront' });
  const counted = view.body.refunds
    .filter((entry: { status: string }) => entry.status !== 'failed')
    .reduce(
      (sum: Decimal, entry: { debited_amount: string }) => sum.plus(entry.debited_amount),
      new Decimal(0),
    );
  expect(counted.lte(order.net_amount)).toBe(true);
  expect(counted.toFixed(8)).toBe(new Decimal(quarter).times(made.length).toFixed(8));
});

test("a store's claim_link_days: set, shown, changed, and each new link's term; a bad value is a 400 naming it", async () => {
  const platform = { token: 'platform' } as const;
  const made = await harness.api('POST', '/stores', {
    ...platform,
    body: { id: 'claim-days', name: 'Claim days', claim_link_days: 7 },
  });
  expect([made.status, made.body.store.claim_link_days]).toEqual([201, 7]);
  expect((await harness.api('GET', '/stores/default', platform)).body.claim_link_days).toBeNull();
  const tokens = { storefront: made.body.storefront_token as string, admin: made.body.admin_token as string };

  // Each of the store's orders is paid in the sandbox under the store's prefix.
  const paidHere = async (order: string) => {
    const created = await harness.api('POST', '/checkout', {
      token: tokens.storefront,
      body: { ...checkoutBody(order), timer: true },
    });
    expect(created.status).toBe(201);
    const upstream = encodeURIComponent(`claim-days!${order}`);
    expect((await harness.control('POST', `/invoices/${upstream}/pay`, { kind: 'full' })).status).toBe(200);
    await waitFor(
      () => harness.api('GET', `/invoices/${order}`, { token: tokens.storefront }),
      ({ body }) => body.status === 'paid' && body.net_amount !== null,
      30_000,
    );
  };
  const claimFor = (order: string, refund: string) =>
    harness.api('POST', `/invoices/${order}/refunds`, {
      token: tokens.admin,
      body: { foreign_id: refund, debited_amount: '1.00' },
    });
  const termDays = (body: { claim_expires_at: string; created_at: string }) =>
    Math.round((Date.parse(body.claim_expires_at) - Date.parse(body.created_at)) / 86_400_000);

  await paidHere('days-order');
  const week = await claimFor('days-order', 'days-r1');
  expect([week.status, termDays(week.body)]).toEqual([201, 7]);

  const changed = await harness.api('PATCH', '/stores/claim-days', {
    ...platform,
    body: { claim_link_days: 90 },
  });
  expect([changed.status, changed.body.claim_link_days]).toEqual([200, 90]);
  const longer = await waitFor(
    async () => {
      const refund = `days-r${Math.random().toString(36).slice(2, 8)}`;
      return claimFor('days-order', refund);
    },
    ({ body }) => termDays(body) === 90, // a warm container reads the store's change with its cache
    30_000,
  );
  expect(longer.status).toBe(201);

  for (const value of [0, 366, '7', 1.5]) {
    const bad = await harness.api('PATCH', '/stores/claim-days', {
      ...platform,
      body: { claim_link_days: value },
    });
    expect([bad.status, Object.keys(bad.body.error.fields)]).toEqual([400, ['claim_link_days']]);
  }
  expect((await harness.api('GET', '/stores/claim-days', platform)).body.claim_link_days).toBe(90);
  const cleared = await harness.api('PATCH', '/stores/claim-days', {
    ...platform,
    body: { claim_link_days: null },
  });
  expect([cleared.status, cleared.body.claim_link_days]).toEqual([200, null]);
  expect((await harness.api('GET', '/stores/claim-days', platform)).body.claim_link_days).toBeNull();
});
