// How an invoice records the service's news of its payment: from callbacks, lookups and the sweep.
import crypto from 'node:crypto';
import { Decimal } from 'decimal.js';
import { customerSecretHash } from '../../domain/customer-secret';
import { NotFoundError } from '../../domain/errors';
import { readInvoiceForCustomer } from '../../domain/invoice-reads';
import { invoiceOutcome } from '../../domain/outcome';
import type { CheckoutRequest, InvoiceRecord, Payment } from '../../domain/model';
import { checkoutRequest, startDomainRig, type DomainRig } from '../support/domain-rig';

let rig: DomainRig;
beforeEach(async () => {
  rig = await startDomainRig();
});
afterEach(() => rig.close());

const checkout = (foreignId: string, overrides: Partial<CheckoutRequest> = {}) =>
  checkoutRequest(foreignId, { type: 'good_until_expired', ...overrides });

const stored = async (foreignId: string) => (await rig.invoiceStore.get(foreignId))!;

/** The amounts as numbers of the same scale, whatever digits the service wrote them with. */
const amounts = (payment: Payment | null) =>
  payment && {
    currency: payment.currency,
    amount: new Decimal(payment.amount).toFixed(8),
    remaining:
      payment.remainingAmount === undefined ? undefined : new Decimal(payment.remainingAmount).toFixed(8),
  };

describe('a payment only grows', () => {
  const paid = (amount: string, remainingAmount: string): Payment => ({
    currency: 'BTC',
    amount,
    remainingAmount,
  });
  const callback = (record: InvoiceRecord, status: 'pending' | 'processing', payment: Payment) =>
    rig.invoices.applyStatus({ upstreamForeignId: record.foreignId, status, source: 'callback', payment });

  test('two partial-payment callbacks out of order: the earlier one does not take the paid amount back', async () => {
    const { record } = await rig.invoices.checkout(checkout('order-w1'));
    await callback(record, 'pending', paid('0.0003', '0.00016'));

    await callback(record, 'pending', paid('0.0001', '0.00036'));

    expect(amounts((await stored('order-w1')).payment)).toEqual({
      currency: 'BTC',
      amount: '0.00030000',
      remaining: '0.00016000',
    });
  });

  test('the same payment written with other digits is no news', async () => {
    const { record } = await rig.invoices.checkout(checkout('order-digits'));
    const first = await callback(record, 'pending', paid('0.0003', '0.00016'));

    expect(await callback(record, 'pending', paid('0.00030000', '0.00016000'))).toBeUndefined();
    expect((await stored('order-digits')).version).toBe(first!.version);
  });

  test('a status that moves forward keeps the larger payment it knows of', async () => {
    const { record } = await rig.invoices.checkout(checkout('order-forward'));
    await callback(record, 'pending', paid('0.0003', '0.00016'));

    await callback(record, 'processing', paid('0.0001', '0.00036'));

    const after = await stored('order-forward');
    expect(after.status).toBe('processing');
    expect(amounts(after.payment)).toMatchObject({ amount: '0.00030000' });
  });
});

describe('a status learnt by lookup or by the sweep carries the payment', () => {
  test('a partial payment found by lookup is recorded', async () => {
    const { record } = await rig.invoices.checkout(checkout('order-partial'));
    const invoice = await rig.control('POST', '/invoices/order-partial/pay', { kind: 'partial' });

    const refreshed = await rig.invoices.refresh(record, 'lookup');

    expect(refreshed?.status).toBe('pending');
    expect(amounts(refreshed!.payment)).toEqual({
      currency: 'BTC',
      amount: new Decimal(invoice.paid_amount).toFixed(8),
      remaining: new Decimal(invoice.remaining_amount).toFixed(8),
    });
  });

  test('a payment the sweep finds moves the status and records what was paid', async () => {
    await rig.invoices.checkout(checkout('order-held', { type: 'fill_or_kill' }));
    const invoice = await rig.control('POST', '/invoices/order-held/pay', { kind: 'full', hold: true });
    rig.clock.ms += 3_600_000;

    await rig.sweep();

    const after = await stored('order-held');
    expect(after.status).toBe('processing');
    expect(after.history.at(-1)).toMatchObject({ status: 'processing', source: 'reconcile' });
    expect(amounts(after.payment)).toMatchObject({
      currency: 'BTC',
      amount: new Decimal(invoice.paid_amount).toFixed(8),
    });
  });

  test('an invoice nobody has paid records no payment', async () => {
    const { record } = await rig.invoices.checkout(checkout('order-unpaid'));

    await rig.invoices.refresh(record, 'lookup');

    expect((await stored('order-unpaid')).payment).toBeNull();
  });
});

describe("the customer's read", () => {
  test('hashes the secret given whether or not the invoice exists, so its time tells no order apart', async () => {
    const { record } = await rig.invoices.checkout(checkout('order-known'));
    await rig.invoices.checkout(checkout('order-no-hash')); // from before client secrets: no hash kept
    const withHash = {
      ...record,
      version: record.version + 1,
      clientSecretHash: customerSecretHash('cs_right'),
    };
    expect(await rig.invoiceStore.update(withHash, record.version)).toBe(true);
    const hashes = jest.spyOn(crypto, 'hash');
    const hashingOf = async (foreignId: string) => {
      hashes.mockClear();
      await expect(readInvoiceForCustomer(rig.invoiceStore, foreignId, 'cs_wrong')).rejects.toThrow(
        NotFoundError,
      );
      return hashes.mock.calls.length;
    };

    const wrongSecret = await hashingOf('order-known');

    expect(wrongSecret).toBeGreaterThan(0);
    expect(await hashingOf('order-missing')).toBe(wrongSecret);
    expect(await hashingOf('order-no-hash')).toBe(wrongSecret);
    await expect(readInvoiceForCustomer(rig.invoiceStore, 'order-known', 'cs_right')).resolves.toMatchObject({
      foreignId: 'order-known',
    });
    hashes.mockRestore();
  });
});

describe('a cancel of an invoice the service has already failed, its news not yet here', () => {
  test.each([
    ['underpaid', [['pay', { kind: 'under' }]]],
    ['expired', [['expire', undefined]]],
    ['failed', [['fail', { error: 'Something the spec does not name.' }]]],
  ] as const)('%s: it keeps that outcome, and the cancel is refused', async (outcome, steps) => {
    await rig.invoices.checkout(checkoutRequest(`order-${outcome}`));
    for (const [action, body] of steps) {
      await rig.control('POST', `/invoices/order-${outcome}/${action}`, body ?? {});
    }

    await expect(rig.invoices.cancel(`order-${outcome}`)).rejects.toMatchObject({
      code: 'invalid_invoice_state',
    });

    const record = await stored(`order-${outcome}`);
    expect(record).toMatchObject({ status: 'failed', cancelled: false });
    expect(invoiceOutcome(record).status).toBe(outcome);
  });
});

describe('money that came after the timer ran out', () => {
  test.each(['the expiry first', 'both in one news'])(
    'is late whichever way its news comes: %s',
    async (order) => {
      const { record } = await rig.invoices.checkout(checkoutRequest('order-late'));
      const expiry = {
        upstreamForeignId: record.foreignId,
        status: 'failed' as const,
        source: 'callback' as const,
        error: 'Timer expired. User not paid.',
      };
      const late = {
        ...expiry,
        payment: { currency: 'BTC', amount: record.invoice!.senderAmount! },
        settlement: { currency: 'EUR', net: '25.24500000', fees: [] },
      };
      for (const update of order === 'the expiry first' ? [expiry, late] : [late]) {
        await rig.invoices.applyStatus(update);
      }

      const settled = await stored('order-late');
      expect(settled.payment).toMatchObject({ late: true });
      expect(invoiceOutcome(settled)).toMatchObject({ status: 'expired', exception: 'paid_late' });
    },
  );

  test('money paid in time and recorded is not made late by the expiry news that reports more', async () => {
    const { record } = await rig.invoices.checkout(checkoutRequest('order-in-time'));
    const upstreamForeignId = record.foreignId;
    await rig.invoices.applyStatus({
      upstreamForeignId,
      status: 'pending',
      source: 'callback',
      payment: { currency: 'BTC', amount: '0.0001' },
    });
    await rig.invoices.applyStatus({
      upstreamForeignId,
      status: 'failed',
      source: 'callback',
      error: 'Timer expired. User not paid.',
      payment: { currency: 'BTC', amount: '0.0002' },
    });

    const settled = await stored('order-in-time');
    expect(settled.payment).not.toHaveProperty('late');
    expect(invoiceOutcome(settled)).toMatchObject({ status: 'underpaid', exception: null });
  });
});

describe('confirmations', () => {
  const news = (foreignId: string, confirmations?: number) =>
    rig.invoices.applyStatus({
      upstreamForeignId: foreignId,
      status: 'processing',
      source: 'callback',
      payment: { currency: 'BTC', amount: '0.00046000', remainingAmount: '0' },
      ...(confirmations !== undefined && { confirmations }),
    });

  test('more confirmations are news; fewer, from older news delivered late, never take the count back', async () => {
    await rig.invoices.checkout(checkout('order-conf'));
    await news('order-conf', 0);
    expect((await stored('order-conf')).confirmations).toBe(0);

    const counted = await news('order-conf', 2);
    expect(counted?.confirmations).toBe(2);

    expect(await news('order-conf', 1)).toBeUndefined();
    expect(await news('order-conf')).toBeUndefined();
    expect((await stored('order-conf')).confirmations).toBe(2);
  });
});

// Found by the soak (issue 31): a delayed `processing` callback, which carries no credit yet but a later expiry,
// arrived after the lookup that recorded the invoice confirmed and credited, and zeroed its net.
test('older news that moves something else never takes the recorded credit back', async () => {
  const { record } = await rig.invoices.checkout(checkoutRequest('order-credit-kept'));
  const upstreamForeignId = record.foreignId;
  const payment = { currency: 'BTC', amount: record.invoice!.senderAmount! };
  const settlement = { currency: 'EUR', net: '25.24500000', fees: [] };
  await rig.invoices.applyStatus({
    upstreamForeignId,
    status: 'confirmed',
    source: 'reconcile',
    payment,
    settlement,
  });

  await rig.invoices.applyStatus({
    upstreamForeignId,
    status: 'processing',
    source: 'callback',
    payment,
    settlement: { currency: 'EUR', net: '0', fees: [] },
    expiresAt: record.invoice!.releaseAt! + 3_600,
    confirmations: 0,
  });

  const kept = await stored('order-credit-kept');
  expect(invoiceOutcome(kept)).toMatchObject({ status: 'paid' });
  expect(kept.settlement).toEqual(settlement);
});
