import { Decimal } from 'decimal.js';
import { clearFaults, expectCleanError, injectFault, type FaultKind } from '../support/faults';
import {
  checkoutBody,
  checkoutMade,
  refundBody,
  startHarness,
  type Answer,
  type Harness,
} from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // the refused requests log warnings; keep the run quiet
  harness = await startHarness({ env: { PROCESSING_TIMEOUT_MS: '500', RATES_CACHE_SECONDS: '0' } });
});
afterAll(async () => {
  await harness.close();
  output.restore();
});
afterEach(() => clearFaults(harness));

const KINDS: FaultKind[] = ['5xx', 'hang', 'reset_after_commit'];
/** Reads are retried twice by the client, so a fault must outlast three attempts to reach the caller. */
const READ_ATTEMPTS = 3;
const CREATE_INVOICE = '/v2/invoices/create';
const CREATE_WITHDRAWAL = '/v2/crypto/withdrawal_instant_exchange';
const LOOKUP = '/v2/transactions/info';

/** What the caller sees for each kind of fault: a service failure, or an answer that never came. */
const EXPECTED: Record<FaultKind, { statuses: number[]; codes: string[] }> = {
  '5xx': { statuses: [502], codes: ['processor_error'] },
  hang: { statuses: [504], codes: ['processor_timeout'] },
  reset_after_commit: { statuses: [504], codes: ['processor_timeout'] },
};

/** Creates committed upstream for a foreign_id (or its later attempts `<id>~n`). */
async function committed(path: string, foreignId: string) {
  const requests = await harness.upstreamRequests(path);
  return requests.filter(
    (request) => request.status === 201 && JSON.parse(request.body).foreign_id.split('~')[0] === foreignId,
  );
}

async function sandboxInvoice(upstreamId: string) {
  return harness.control('GET', `/invoices/${encodeURIComponent(upstreamId)}`);
}

async function eurBalance(): Promise<string> {
  const { body } = await harness.control('GET', '/balances');
  return body.data.find((entry: { currency: string }) => entry.currency === 'EUR').balance;
}

const createInvoice = (foreignId: string) => checkoutMade(harness, foreignId);

async function createRefund(foreignId: string) {
  const created = await harness.api('POST', '/refunds', { token: 'admin', body: refundBody(foreignId) });
  expect(created.status).toBe(201);
  return created.body;
}

describe('checkout', () => {
  test.each(['5xx', 'hang'] as const)(
    '%s: a clear error, then the retry creates one payable invoice',
    async (kind) => {
      const foreignId = `fault-checkout-${kind}`;
      const body = checkoutBody(foreignId);
      await injectFault(harness, CREATE_INVOICE, kind);

      const failed = await harness.api('POST', '/checkout', { token: 'storefront', body });
      expectCleanError(failed, EXPECTED[kind].statuses, EXPECTED[kind].codes);
      const meanwhile = await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });
      expect(meanwhile.status).toBe(200);

      await clearFaults(harness);
      const retried = await harness.api('POST', '/checkout', { token: 'storefront', body });
      expect(retried.status).toBe(201);
      expect(retried.body).toMatchObject({
        foreign_id: foreignId,
        status: 'awaiting_payment',
        payment_url: expect.any(String),
      });
      expect(await committed(CREATE_INVOICE, foreignId)).toHaveLength(1);
      expect((await sandboxInvoice(foreignId)).body.status).toBe('pending');
    },
  );

  test('reset_after_commit: the retry answers a payable invoice and the orphan upstream is cancelled', async () => {
    const foreignId = 'fault-checkout-reset';
    const body = checkoutBody(foreignId);
    await injectFault(harness, CREATE_INVOICE, 'reset_after_commit');

    const failed = await harness.api('POST', '/checkout', { token: 'storefront', body });
    expectCleanError(failed, [504], ['processor_timeout']);

    await clearFaults(harness);
    const retried = await harness.api('POST', '/checkout', { token: 'storefront', body });
    expect(retried.status).toBe(201);
    const orphan = await sandboxInvoice(foreignId);
    const replacement = await sandboxInvoice(`${foreignId}~2`);
    expect(orphan.body.status).toBe('failed');
    expect(replacement.status).toBe(200);
    expect(replacement.body.status).toBe('pending');
    expect(retried.body).toMatchObject({
      foreign_id: foreignId,
      status: 'awaiting_payment',
      payment_url: replacement.body.url,
    });
    expect(await committed(CREATE_INVOICE, foreignId)).toHaveLength(2);

    const again = await harness.api('POST', '/checkout', { token: 'storefront', body });
    expect(again.status).toBe(200);
    expect(again.body.payment_url).toBe(replacement.body.url);
    expect(await committed(CREATE_INVOICE, foreignId)).toHaveLength(2);
  });
});

describe('cancel', () => {
  test.each(KINDS)('%s: a clear error, then the invoice ends cancelled', async (kind) => {
    const foreignId = `fault-cancel-${kind}`;
    await createInvoice(foreignId);
    await injectFault(harness, `/v2/invoices/${foreignId}/cancel/`, kind);

    const first = await harness.api('POST', `/invoices/${foreignId}/cancel`, { token: 'admin' });
    // A cancel that took effect upstream is confirmed by a lookup, so the caller gets 200 at once.
    if (kind === 'reset_after_commit') expect(first.body).toMatchObject({ status: 'cancelled', final: true });
    else expectCleanError(first, EXPECTED[kind].statuses, EXPECTED[kind].codes);

    await clearFaults(harness);
    const retried = await harness.api('POST', `/invoices/${foreignId}/cancel`, { token: 'admin' });
    if (retried.status !== 200) expectCleanError(retried, [409], ['invalid_invoice_state']);
    const polled = await waitFor(
      () => harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' }),
      (answer) => answer.body.status === 'cancelled',
    );
    expect(polled.body.status).toBe('cancelled');
    expect((await sandboxInvoice(foreignId)).body.status).toBe('failed');
  });
});

test('cancel reset_after_commit with the callback lost: the invoice still ends cancelled', async () => {
  const foreignId = 'fault-cancel-reset-no-callback';
  await createInvoice(foreignId);
  await harness.control('POST', '/callbacks', { url: null });
  try {
    await injectFault(harness, `/v2/invoices/${foreignId}/cancel/`, 'reset_after_commit');
    const answer = await harness.api('POST', `/invoices/${foreignId}/cancel`, { token: 'admin' });
    expect(answer.status).toBe(200);
    await clearFaults(harness);

    expect((await sandboxInvoice(foreignId)).body.status).toBe('failed');
    const polled = await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' });
    expect(polled.body.status).toBe('cancelled');
    const again = await harness.api('POST', `/invoices/${foreignId}/cancel`, { token: 'admin' });
    expectCleanError(again, [409], ['invalid_invoice_state']);
  } finally {
    await harness.control('POST', '/callbacks', { url: `${harness.stack.url}/callbacks` });
  }
});

describe('refund', () => {
  test.each(['5xx', 'hang'] as const)(
    '%s on every send: a clear error, then the retry sends one withdrawal',
    async (kind) => {
      const foreignId = `fault-refund-${kind}`;
      const body = refundBody(foreignId);
      const before = await eurBalance();
      // The client looks the withdrawal up after a failed send and sends once more: fail both sends.
      await injectFault(harness, CREATE_WITHDRAWAL, kind, 2);

      const failed = await harness.api('POST', '/refunds', { token: 'admin', body });
      expectCleanError(failed, EXPECTED[kind].statuses, EXPECTED[kind].codes);
      expect(await eurBalance()).toBe(before);
      const meanwhile = await harness.api('GET', `/refunds/${foreignId}`, { token: 'admin' });
      expect(meanwhile.status).toBe(200);

      await clearFaults(harness);
      const retried = await harness.api('POST', '/refunds', { token: 'admin', body });
      expect(retried.status).toBe(201);
      expect(retried.body).toMatchObject({
        foreign_id: foreignId,
        status: 'processing',
        transaction_id: expect.any(Number),
      });
      expect(await committed(CREATE_WITHDRAWAL, foreignId)).toHaveLength(1);
      expect(new Decimal(before).minus(await eurBalance()).toString()).toBe('10');
    },
  );

  test('reset_after_commit alone: the client finds the committed withdrawal and answers it', async () => {
    const foreignId = 'fault-refund-reset-healed';
    await injectFault(harness, CREATE_WITHDRAWAL, 'reset_after_commit');

    const answer = await harness.api('POST', '/refunds', { token: 'admin', body: refundBody(foreignId) });

    expect(answer.status).toBe(201);
    expect(answer.body).toMatchObject({ status: 'processing', transaction_id: expect.any(Number) });
    expect(await committed(CREATE_WITHDRAWAL, foreignId)).toHaveLength(1);
  });

  test('reset_after_commit with the lookup failing too: a clear error, then the retry adopts it', async () => {
    const foreignId = 'fault-refund-reset';
    const body = refundBody(foreignId);
    const before = await eurBalance();
    await injectFault(harness, CREATE_WITHDRAWAL, 'reset_after_commit');
    await injectFault(harness, LOOKUP, '5xx', READ_ATTEMPTS);

    const failed = await harness.api('POST', '/refunds', { token: 'admin', body });
    expectCleanError(failed, [504], ['processor_timeout']);

    await clearFaults(harness);
    const retried = await harness.api('POST', '/refunds', { token: 'admin', body });
    expect([200, 201]).toContain(retried.status);
    expect(retried.body).toMatchObject({
      foreign_id: foreignId,
      status: 'processing',
      transaction_id: expect.any(Number),
    });
    expect(await committed(CREATE_WITHDRAWAL, foreignId)).toHaveLength(1);
    expect(new Decimal(before).minus(await eurBalance()).toString()).toBe('10');
  });
});

describe('reads', () => {
  const reads = [
    {
      name: 'balances live',
      path: '/v2/accounts/list',
      call: () => harness.api('GET', '/balances?live=true', { token: 'admin' }),
    },
    {
      name: 'rates',
      path: '/v2/currencies/rates',
      call: () => harness.api('GET', '/rates?from=BTC&to=EUR', { token: 'storefront' }),
    },
    {
      name: 'pairs',
      path: '/v2/currencies/pairs',
      call: () => harness.api('GET', '/pairs?from=BTC&to=EUR', { token: 'storefront' }),
    },
    {
      name: 'transactions lookup',
      path: LOOKUP,
      call: () => harness.api('GET', '/transactions?foreign_id=fault-lookup-target', { token: 'admin' }),
    },
  ];
  beforeAll(() => createRefund('fault-lookup-target'));

  // The reads use different upstream paths, so they run side by side (hangs take seconds each).
  test.each(KINDS)(
    '%s on balances live, rates, pairs and lookup: clear errors, then answers',
    async (kind) => {
      for (const read of reads) await injectFault(harness, read.path, kind, READ_ATTEMPTS);

      const failed = await Promise.all(reads.map((read) => read.call()));
      const statusOf = (answers: Answer[]) =>
        Object.fromEntries(reads.map((read, i) => [read.name, answers[i].status]));
      expect(statusOf(failed)).toEqual(
        Object.fromEntries(reads.map((read) => [read.name, EXPECTED[kind].statuses[0]])),
      );
      for (const answer of failed) expectCleanError(answer, EXPECTED[kind].statuses, EXPECTED[kind].codes);

      await clearFaults(harness);
      const retried = await Promise.all(reads.map((read) => read.call()));
      expect(statusOf(retried)).toEqual(Object.fromEntries(reads.map((read) => [read.name, 200])));
    },
  );

  test.each(KINDS)('get refund refresh, %s: a clear error, then the real status', async (kind) => {
    const foreignId = `fault-refresh-${kind}`;
    await createRefund(foreignId);
    await injectFault(harness, LOOKUP, kind, READ_ATTEMPTS);

    const during = await harness.api('GET', `/refunds/${foreignId}`, { token: 'admin' });
    expectCleanError(during, EXPECTED[kind].statuses, EXPECTED[kind].codes);

    await clearFaults(harness);
    await harness.control('POST', `/withdrawals/${foreignId}/complete`, { status: 'confirmed' });
    const after = await waitFor(
      () => harness.api('GET', `/refunds/${foreignId}`, { token: 'admin' }),
      (answer) => answer.body.status === 'confirmed',
    );
    expect(after.body).toMatchObject({ status: 'confirmed', final: true });
  });
});
