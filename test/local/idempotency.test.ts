import { Decimal } from 'decimal.js';
import { checkoutBody, refundBody, startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // conflicts and injected failures log warnings; keep the run quiet
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

const CREATE_INVOICE = '/v2/invoices/create';
const CREATE_WITHDRAWAL = '/v2/crypto/withdrawal_instant_exchange';

/** Upstream requests for a path that carried this foreign_id. */
async function upstreamFor(path: string, foreignId: string) {
  const requests = await harness.upstreamRequests(path);
  return requests.filter((request) => JSON.parse(request.body).foreign_id === foreignId);
}

async function sandboxBalance(currency: string): Promise<string> {
  const { body } = await harness.control('GET', '/balances');
  return body.data.find((entry: { currency: string }) => entry.currency === currency).balance;
}

async function liveBalance(currency: string): Promise<string> {
  const { status, body } = await harness.api('GET', '/balances?live=true', { token: 'admin' });
  expect(status).toBe(200);
  return body.balances.find((entry: { currency: string }) => entry.currency === currency).balance;
}

/** Balances are decimal strings; the difference is exact. */
function debited(before: string, after: string): string {
  return new Decimal(before).minus(after).toString();
}

/** Sends the same request `count` times at once; a 409 in_progress is retried until it settles. */
async function concurrently(count: number, send: () => Promise<Answer>): Promise<Answer[]> {
  // As the README tells a client: a 409 `in_progress` or a 503 (DynamoDB slow on a busy machine) is asked again.
  const settle = async (): Promise<Answer> => {
    for (;;) {
      const answer = await send();
      const busy = answer.status === 503 || answer.body.error?.code === 'in_progress';
      if (!busy) return answer;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  return Promise.all(Array.from({ length: count }, settle));
}

describe('checkout', () => {
  test('the same checkout twice creates one upstream invoice and answers the same invoice', async () => {
    const body = checkoutBody('idem-twice');
    const first = await harness.api('POST', '/checkout', { token: 'storefront', body });
    const second = await harness.api('POST', '/checkout', { token: 'storefront', body });

    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.payment_url).toEqual(expect.any(String));
    expect(second.body.payment_url).toBe(first.body.payment_url);
    expect(second.body.pay_address).toBe(first.body.pay_address);
    expect(second.body.pay_amount).toBe(first.body.pay_amount);
    expect(await upstreamFor(CREATE_INVOICE, 'idem-twice')).toHaveLength(1);
  });

  test('the same foreign_id with a different body answers 409 foreign_id_conflict and sends nothing', async () => {
    const created = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('idem-conflict'),
    });
    expect(created.status).toBe(201);

    const conflict = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('idem-conflict', { amount: '26.00' }),
    });

    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('foreign_id_conflict');
    expect(await upstreamFor(CREATE_INVOICE, 'idem-conflict')).toHaveLength(1);
    const polled = await harness.api('GET', '/invoices/idem-conflict', { token: 'storefront' });
    expect(polled.body).toMatchObject({ amount: created.body.amount, payment_url: created.body.payment_url });
  });

  test('50 concurrent checkouts with one foreign_id create exactly one upstream invoice', async () => {
    const body = checkoutBody('idem-50');
    const answers = await concurrently(50, () =>
      harness.api('POST', '/checkout', { token: 'storefront', body }),
    );

    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(49);
    expect(new Set(answers.map((answer) => answer.body.payment_url)).size).toBe(1);
    expect(answers[0].body.payment_url).toEqual(expect.any(String));
    expect(await upstreamFor(CREATE_INVOICE, 'idem-50')).toHaveLength(1);
  });

  test('the same checkout with its fields in another order and other spacing is the same request', async () => {
    const body = checkoutBody('idem-reordered');
    const first = await harness.api('POST', '/checkout', { token: 'storefront', body });
    const reordered = JSON.stringify(Object.fromEntries(Object.entries(body).reverse()), null, 2);
    const second = await harness.api('POST', '/checkout', { token: 'storefront', body: reordered });

    expect([first.status, second.status]).toEqual([201, 200]);
    expect(second.body.payment_url).toBe(first.body.payment_url);
    expect(await upstreamFor(CREATE_INVOICE, 'idem-reordered')).toHaveLength(1);
  });

  test('50 concurrent checkouts while the first create answer is lost end with one payable invoice', async () => {
    const body = checkoutBody('idem-50-lost');
    await harness.control('POST', '/faults', { path: CREATE_INVOICE, kind: 'reset_after_commit', times: 1 });

    const answers = await concurrently(50, () =>
      harness.api('POST', '/checkout', { token: 'storefront', body }),
    );

    const statuses = answers.map((answer) => answer.status).sort();
    expect(statuses.filter((status) => ![200, 201].includes(status))).toEqual([504]);
    const invoices = answers.filter((answer) => answer.status < 300);
    expect(new Set(invoices.map((answer) => answer.body.payment_url)).size).toBe(1);
    const replacement = await harness.control('GET', '/invoices/idem-50-lost~2');
    expect(replacement.body.status).toBe('pending');
    expect(invoices[0].body.payment_url).toBe(replacement.body.url);
    expect((await harness.control('GET', '/invoices/idem-50-lost')).body.status).toBe('failed');
    const created = (await harness.upstreamRequests(CREATE_INVOICE)).filter(
      (request) => request.status === 201 && JSON.parse(request.body).foreign_id.startsWith('idem-50-lost'),
    );
    expect(created).toHaveLength(2);
  });
});

describe('refunds', () => {
  test('the same refund twice sends one withdrawal and debits the ledger once', async () => {
    const before = await sandboxBalance('EUR');
    const body = refundBody('refund-twice', { debited_amount: '10' });
    const first = await harness.api('POST', '/refunds', { token: 'admin', body });
    const second = await harness.api('POST', '/refunds', { token: 'admin', body });

    expect(first.status).toBe(201);
    expect(second.status).toBe(200);
    expect(second.body.transaction_id).toEqual(expect.any(Number));
    expect(second.body.transaction_id).toBe(first.body.transaction_id);
    expect(await upstreamFor(CREATE_WITHDRAWAL, 'refund-twice')).toHaveLength(1);
    expect(debited(before, await sandboxBalance('EUR'))).toBe('10');
  });

  test('the same foreign_id with a different refund answers 409 foreign_id_conflict and sends nothing', async () => {
    const created = await harness.api('POST', '/refunds', {
      token: 'admin',
      body: refundBody('refund-conflict'),
    });
    expect(created.status).toBe(201);

    const conflict = await harness.api('POST', '/refunds', {
      token: 'admin',
      body: refundBody('refund-conflict', { debited_amount: '11' }),
    });

    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('foreign_id_conflict');
    expect(await upstreamFor(CREATE_WITHDRAWAL, 'refund-conflict')).toHaveLength(1);
  });

  test('50 concurrent refunds with one foreign_id send one withdrawal; the ledger is debited once', async () => {
    const sandboxBefore = await sandboxBalance('EUR');
    const liveBefore = await liveBalance('EUR');
    expect(liveBefore).toBe(sandboxBefore);
    const body = refundBody('refund-50', { debited_amount: '12.5' });

    const answers = await concurrently(50, () => harness.api('POST', '/refunds', { token: 'admin', body }));

    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(1);
    expect(statuses.filter((status) => status === 200)).toHaveLength(49);
    expect(new Set(answers.map((answer) => answer.body.transaction_id)).size).toBe(1);
    expect(await upstreamFor(CREATE_WITHDRAWAL, 'refund-50')).toHaveLength(1);
    expect(debited(sandboxBefore, await sandboxBalance('EUR'))).toBe('12.5');
    expect(debited(liveBefore, await liveBalance('EUR'))).toBe('12.5');
  });

  test('50 concurrent refunds while the first send fails twice send one withdrawal', async () => {
    const before = await sandboxBalance('EUR');
    const body = refundBody('refund-50-failing');
    await harness.control('POST', '/faults', { path: CREATE_WITHDRAWAL, kind: '5xx', times: 2 });

    const answers = await concurrently(50, () => harness.api('POST', '/refunds', { token: 'admin', body }));

    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => ![200, 201].includes(status))).toEqual([502]);
    const refunds = answers.filter((answer) => answer.status < 300);
    expect(new Set(refunds.map((answer) => answer.body.transaction_id)).size).toBe(1);
    const sent = await upstreamFor(CREATE_WITHDRAWAL, 'refund-50-failing');
    expect(sent.filter((request) => request.status === 201)).toHaveLength(1);
    expect(debited(before, await sandboxBalance('EUR'))).toBe('10');
  });
});
