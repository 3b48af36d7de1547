// A store moved to its own account while its checkouts, cancels and refunds run (issue 40), through the real
// handlers with the store cache on, as in AWS. Every order's calls and callbacks stay on the account it was
// claimed on, whichever side of the move it fell.
import { startSandbox, type Sandbox } from '../../sandbox/server';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';
import { waitFor } from '../support/wait';

/** How long after the burst starts the move is sent, one round each: before, among and after the claims. */
const OFFSETS_MS = [0, 2, 5, 10, 20, 40];
const CHECKOUTS = 40;
const CANCELS = 5;
const REFUNDS = 5;
const OWN_KEYS = { api_key: 'moves-api-key', secret_key: 'moves-secret-key' };

let harness: Harness;
let output: CapturedOutput;
let ownSandbox: Sandbox;

beforeAll(async () => {
  output = captureOutput();
  harness = await startHarness();
  ownSandbox = await startSandbox({ apiKey: OWN_KEYS.api_key, secretKey: OWN_KEYS.secret_key });
  await harness.control('POST', '/callbacks', { url: `${harness.stack.url}/callbacks` });
}, 60_000);
afterAll(async () => {
  await ownSandbox?.close();
  await harness?.close();
  output?.restore();
});

async function ownControl(method: string, path: string, body?: object) {
  const response = await fetch(`${ownSandbox.url}/_sandbox${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

/** Each record of the store, as its item holds it. */
async function recordsOf(storeId: string, kind: 'INVOICE' | 'REFUND') {
  const prefix = `S#${storeId}#${kind}#`;
  return new Map(
    (await scanTable(harness.stack))
      .filter((item) => item.pk.S?.startsWith(prefix))
      .map((item) => {
        const record = JSON.parse(item.data.S!) as { foreignId: string; account?: string };
        return [record.foreignId, record] as const;
      }),
  );
}

const upstreamIds = (list: Array<{ foreign_id: string }>) => new Set(list.map((entry) => entry.foreign_id));

test.each(OFFSETS_MS)(
  'a move sent %i ms into 50 checkouts, cancels and refunds leaves every order on the account it was claimed on',
  async (offset) => {
    const storeId = `move-${offset}`;
    const made = await harness.api('POST', '/stores', {
      token: 'platform',
      body: { id: storeId, name: `Moving ${offset}` },
    });
    expect(made.status).toBe(201);
    const storefront = made.body.storefront_token as string;
    const admin = made.body.admin_token as string;
    await ownControl('POST', '/callbacks', { url: `${harness.stack.url}/callbacks/${storeId}` });

    // Before the move: orders to refund, paid on the shared account, and orders to cancel.
    const toRefund = Array.from({ length: REFUNDS }, (_, i) => `paid-${offset}-${i}`);
    const toCancel = Array.from({ length: CANCELS }, (_, i) => `open-${offset}-${i}`);
    for (const foreignId of [...toRefund, ...toCancel]) {
      const answer = await harness.api('POST', '/checkout', {
        token: storefront,
        body: checkoutBody(foreignId),
      });
      expect(answer.status).toBe(201);
    }
    for (const foreignId of toRefund) {
      const pay = `/invoices/${encodeURIComponent(`${storeId}!${foreignId}`)}/pay`;
      expect((await harness.control('POST', pay, { kind: 'full' })).status).toBe(200);
      const paid = await waitFor(
        () => harness.api('GET', `/invoices/${foreignId}`, { token: storefront }),
        ({ body }) => body.refundable !== null && body.refundable !== undefined,
        60_000,
      );
      expect(paid.body.status).toBe('paid');
    }

    // The own account is one for every round: each round's foreign_ids are its own.
    const fresh = Array.from({ length: CHECKOUTS }, (_, i) => `new-${offset}-${i}`);
    const move = (async () => {
      await new Promise((resolve) => setTimeout(resolve, offset));
      return harness.api('PATCH', `/stores/${storeId}`, {
        token: 'platform',
        body: { processing: { ...OWN_KEYS, base_url: ownSandbox.url } },
      });
    })();
    const [moved, checkouts, cancels, refunds] = await Promise.all([
      move,
      Promise.all(
        fresh.map((foreignId) =>
          harness.api('POST', '/checkout', { token: storefront, body: checkoutBody(foreignId) }),
        ),
      ),
      Promise.all(
        toCancel.map((foreignId) => harness.api('POST', `/invoices/${foreignId}/cancel`, { token: admin })),
      ),
      Promise.all(
        toRefund.map((foreignId) =>
          harness.api('POST', `/invoices/${foreignId}/refunds`, {
            token: admin,
            body: {
              foreign_id: `refund-${foreignId}`,
              debited_amount: '1',
              address: refundBody('x').address,
            },
          }),
        ),
      ),
    ]);

    expect({ status: moved.status, account: moved.body.account }).toEqual({ status: 200, account: 'own' });
    expect(checkouts.filter((answer) => answer.status !== 201).map((answer) => answer.body)).toEqual([]);
    expect(cancels.map((answer) => [answer.status, answer.body.status])).toEqual(
      toCancel.map(() => [200, 'cancelled']),
    );
    expect(refunds.map((answer) => answer.status)).toEqual(toRefund.map(() => 201));

    // An order claimed after the move's answer is on the store's own account.
    const after = `after-${offset}`;
    const late = await harness.api('POST', '/checkout', { token: storefront, body: checkoutBody(after) });
    expect(late.status).toBe(201);
    fresh.push(after);

    // Each invoice and withdrawal is on the account its record was claimed on, and on no other.
    const invoices = await recordsOf(storeId, 'INVOICE');
    expect(invoices.get(after)?.account).toBe('own');
    const shared = (await harness.control('GET', '/transactions')).body;
    const own = (await ownControl('GET', '/transactions')).body;
    const sharedInvoices = upstreamIds(shared.invoices);
    const ownInvoices = upstreamIds(own.invoices);
    for (const foreignId of [...toRefund, ...toCancel, ...fresh]) {
      const account = invoices.get(foreignId)?.account;
      expect({ foreignId, account, onShared: sharedInvoices.has(`${storeId}!${foreignId}`) }).toEqual({
        foreignId,
        account: expect.stringMatching(/^(shared|own)$/),
        onShared: account === 'shared',
      });
      expect({ foreignId, onOwn: ownInvoices.has(foreignId) }).toEqual({
        foreignId,
        onOwn: account === 'own',
      });
    }
    const refundRecords = await recordsOf(storeId, 'REFUND');
    for (const foreignId of toRefund) {
      expect(refundRecords.get(`refund-${foreignId}`)?.account).toBe('shared');
      expect(upstreamIds(shared.withdrawals).has(`${storeId}!refund-${foreignId}`)).toBe(true);
    }

    // Every callback is applied: each new order paid on its own account reads paid, each refund confirmed.
    for (const foreignId of fresh) {
      if (invoices.get(foreignId)!.account === 'own') {
        expect((await ownControl('POST', `/invoices/${foreignId}/pay`, { kind: 'full' })).status).toBe(200);
      } else {
        const pay = `/invoices/${encodeURIComponent(`${storeId}!${foreignId}`)}/pay`;
        expect((await harness.control('POST', pay, { kind: 'full' })).status).toBe(200);
      }
    }
    for (const foreignId of toRefund) {
      const complete = `/withdrawals/${encodeURIComponent(`${storeId}!refund-${foreignId}`)}/complete`;
      expect((await harness.control('POST', complete, { status: 'confirmed' })).status).toBe(200);
    }
    for (const foreignId of fresh) {
      const seen = await waitFor(
        () => harness.api('GET', `/invoices/${foreignId}`, { token: storefront }),
        ({ body }) => body.status === 'paid',
        60_000,
      );
      expect({ foreignId, status: seen.body.status }).toEqual({ foreignId, status: 'paid' });
    }
    for (const foreignId of toRefund) {
      const seen = await waitFor(
        () => harness.api('GET', `/refunds/refund-${foreignId}`, { token: admin }),
        ({ body }) => body.status === 'confirmed',
        60_000,
      );
      expect({ foreignId, status: seen.body.status }).toEqual({ foreignId, status: 'confirmed' });
    }
  },
  300_000,
);
