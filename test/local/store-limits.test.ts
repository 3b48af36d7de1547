// Issue 45: one store cannot starve the others. A store sending far over its requests a second gets 429
// rate_limited with Retry-After, and another store's checkouts and polls all succeed.
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';

const STAGE_LIMIT = 20;
const BUSY_LIMIT = 2;
/** Far over the busy store's limit, sent at once: only a machine taking seconds per request would spread them out. */
const BURST = 40;
/** The quiet store's requests in all: fewer than its limit, however fast they go. */
const QUIET_ORDERS = 3;

let harness: Harness;
let output: CapturedOutput;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  output = captureOutput(); // refused requests log warnings; keep the run quiet
  harness = await startHarness({ env: { STORE_REQUESTS_PER_SECOND: String(STAGE_LIMIT) } });
  for (const [id, extra] of [
    ['busy', { requests_per_second: BUSY_LIMIT }],
    ['quiet', {}],
    ['counted', { requests_per_second: BUSY_LIMIT }],
  ] as const) {
    const made = await harness.api('POST', '/stores', {
      token: 'platform',
      body: { id, name: `Store ${id}`, ...extra },
    });
    expect(made.status).toBe(201);
    tokens[id] = made.body.storefront_token;
  }
}, 60_000);
afterAll(async () => {
  await harness?.close();
  output?.restore();
});

const busyInvoiceItems = async () =>
  (await scanTable(harness.stack)).filter((item) => item.pk.S?.startsWith('S#busy#INVOICE#'));

/** The quiet store's customer journey: a checkout, the shop's poll, and the customer's poll with its secret. */
async function quietOrder(i: number): Promise<number[]> {
  const made = await harness.api('POST', '/checkout', {
    token: tokens.quiet,
    body: checkoutBody(`quiet-${i}`),
  });
  const poll = await harness.api('GET', `/invoices/quiet-${i}`, { token: tokens.quiet });
  const customer = await harness.api('GET', `/public/invoices/quiet-${i}`, {
    headers: { 'x-client-secret': made.body.client_secret },
  });
  return [made.status, poll.status, customer.status];
}

test("a store far over its limit gets 429 with Retry-After, and nothing of its refused requests is written; the other store's checkouts and polls all succeed", async () => {
  const busy = Array.from({ length: BURST }, (_, i) =>
    i % 2 === 0
      ? harness.api('POST', '/checkout', { token: tokens.busy, body: checkoutBody(`busy-${i}`) })
      : harness.api('GET', `/invoices/busy-${i - 1}`, { token: tokens.busy }),
  );
  const quiet = (async () => {
    const statuses: number[] = [];
    for (let i = 0; i < QUIET_ORDERS; i++) statuses.push(...(await quietOrder(i)));
    return statuses;
  })();
  const [busyAnswers, quietStatuses] = await Promise.all([Promise.all(busy), quiet]);

  expect(quietStatuses).toEqual(Array.from({ length: QUIET_ORDERS }, () => [201, 200, 200]).flat());

  const refused = busyAnswers.filter((answer) => answer.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  for (const answer of refused) {
    expect(answer.body.error.code).toBe('rate_limited');
    expect(answer.body.error.message).toContain(`limit of ${BUSY_LIMIT} requests a second`);
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  // Every other answer is the route's own: a checkout made, or a poll that found its invoice or not yet.
  for (const answer of busyAnswers.filter((answer) => answer.status !== 429)) {
    expect([200, 201, 404]).toContain(answer.status);
  }
  const created = busyAnswers.filter((answer) => answer.status === 201).length;
  expect(await busyInvoiceItems()).toHaveLength(created);
  // Each refusal is counted for its store, and only for it: the dashboard's StoreRateLimited per Store.
  const counted = output
    .text()
    .split('\n')
    .filter((line) => line.includes('"StoreRateLimited"'))
    .map((line) => JSON.parse(line) as { Store: string; StoreRateLimited: number });
  expect(counted).toHaveLength(refused.length);
  expect(counted.every((line) => line.Store === 'busy' && line.StoreRateLimited === 1)).toBe(true);
}, 120_000);

test('requests_per_second: set, shown, cleared back to the stage default with null; a bad value is a 400 naming it', async () => {
  const store = (body: object) => harness.api('PATCH', '/stores/quiet', { token: 'platform', body });
  expect((await harness.api('GET', '/stores/busy', { token: 'platform' })).body.requests_per_second).toBe(
    BUSY_LIMIT,
  );
  expect(
    (await harness.api('GET', '/stores/quiet', { token: 'platform' })).body.requests_per_second,
  ).toBeNull();
  expect(
    (await harness.api('GET', '/stores/default', { token: 'platform' })).body.requests_per_second,
  ).toBeNull();
  const set = await store({ requests_per_second: 500 });
  expect([set.status, set.body.requests_per_second]).toEqual([200, 500]);
  const kept = await store({ name: 'Quiet store' });
  expect([kept.status, kept.body.requests_per_second]).toEqual([200, 500]);
  const cleared = await store({ requests_per_second: null });
  expect([cleared.status, cleared.body.requests_per_second]).toEqual([200, null]);
  for (const value of [0, 1.5, '5', 100_001]) {
    const bad = await store({ requests_per_second: value });
    expect([bad.status, Object.keys(bad.body.error.fields)]).toEqual([400, ['requests_per_second']]);
  }
});

// Its own store, so that no earlier test's requests spend the second its polls start in: the checkout leaves room
// for at least one poll there, and each later second admits more.
test("a customer's polls count against their store's limit once the secret is checked; a made-up secret is not found", async () => {
  const made = await harness.api('POST', '/checkout', {
    token: tokens.counted,
    body: checkoutBody('counted-customer'),
  });
  expect(made.status).toBe(201);
  const poll = (secret: string) =>
    harness.api('GET', '/public/invoices/counted-customer', { headers: { 'x-client-secret': secret } });
  // A secret naming the store that its record does not hold is refused as not found, whatever the burst.
  const forged = await Promise.all(Array.from({ length: BURST }, () => poll('cs_counted!made-up')));
  expect(new Set(forged.map((answer) => answer.status))).toEqual(new Set([404]));
  const polls = await Promise.all(Array.from({ length: BURST }, () => poll(made.body.client_secret)));
  const refused = polls.filter((answer) => answer.status === 429);
  expect(refused.length).toBeGreaterThan(0);
  for (const answer of refused) expect(answer.body.error.code).toBe('rate_limited');
  expect(new Set(polls.map((answer) => answer.status))).toEqual(new Set([200, 429]));
}, 120_000);
