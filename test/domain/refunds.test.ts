import { oneAccount } from '../../domain/upstream';
// A refund adopts a withdrawal found under its foreign_id only when it is the one the refund asked for.
import { Decimal } from 'decimal.js';
import { ConflictError, ServiceError } from '../../domain/errors';
import type { OrderRefundRequest, RefundRecord, RefundRequest } from '../../domain/model';
import type { ProcessingApi } from '../../domain/ports';
import { RefundService } from '../../domain/refunds';
import { refundView } from '../../http/views';
import { ProcessingAdapter } from '../../processing/adapter';
import { checkoutRequest, startDomainRig, SWEEP_TIMING, type DomainRig } from '../support/domain-rig';

let rig: DomainRig;
beforeEach(async () => {
  rig = await startDomainRig();
});
afterEach(() => rig.close());

const OUR_ADDRESS = 'bc1qrefundaddress0000000000000000000000';
const OTHER_ADDRESS = 'bc1qsomeoneelse000000000000000000000000';

const refund = (foreignId: string, overrides: Partial<RefundRequest> = {}): RefundRequest => ({
  foreignId,
  senderCurrency: 'EUR',
  receivedCurrency: 'BTC',
  senderAmount: '7',
  address: OUR_ADDRESS,
  ...overrides,
});

/** A withdrawal someone else made at the service under this foreign_id (a signed call, not through us). */
async function foreignWithdrawal(foreignId: string, amount: string, address: string) {
  return rig.client.createWithdrawal({
    foreign_id: foreignId,
    sender_currency: 'EUR',
    received_currency: 'BTC',
    sender_amount: amount,
    address,
  });
}

/**
 * A send of ours whose outcome was lost: the create fails (after committing a withdrawal, or before), and so
 * does the client's own lookup, which leaves the refund `unknown` for a retry or the sweep to settle.
 */
async function lostSend(request: RefundRequest | OrderRefundRequest, committed: boolean): Promise<void> {
  const kind = committed ? 'reset_after_commit' : '5xx';
  await rig.control('POST', '/faults', { path: '/v2/crypto/withdrawal_instant_exchange', kind, times: 1 });
  await rig.control('POST', '/faults', { path: '/v2/transactions/info', kind: '5xx' });
  await expect(rig.refunds.create(request)).rejects.toThrow();
  await rig.control('DELETE', '/faults');
  expect(await rig.refundStore.get(request.foreignId)).toMatchObject({ phase: 'unknown', withdrawal: null });
}

/** The id of the withdrawal the service holds under `foreignId`. */
const withdrawalIdAtService = async (foreignId: string) =>
  (await rig.client.getTransaction({ foreign_id: foreignId })).id;

const eurBalance = async () =>
  (await rig.client.listBalances()).find((entry) => entry.currency === 'EUR')!.balance;

/** A record that shows none of the other withdrawal: refused for good, with our request's amounts only. */
function expectRefusedForGood(record: RefundRecord | undefined) {
  expect(record).toMatchObject({ phase: 'rejected', status: null, withdrawal: null });
  expect(record!.error).toMatch(/another withdrawal/);
  expect(record!.history).toEqual([]);
}

describe('a foreign_id the service holds for a withdrawal we did not make', () => {
  test('create answers a conflict, and the refund is refused for good: the sweep neither adopts nor retries it', async () => {
    await foreignWithdrawal('ext-1', '5', OTHER_ADDRESS);
    const before = await eurBalance();

    const error = await rig.refunds.create(refund('ext-1')).catch((e: unknown) => e);

    expect(error).toMatchObject({ constructor: ConflictError, code: 'duplicate_foreign_id' });
    expectRefusedForGood(await rig.refundStore.get('ext-1'));
    rig.clock.ms += 3_600_000;
    expect((await rig.sweep()).refundsChecked).toBe(0);
    expectRefusedForGood(await rig.refundStore.get('ext-1'));
    expectRefusedForGood(await rig.refunds.get('ext-1'));
    // The same request again is refused again.
    await expect(rig.refunds.create(refund('ext-1'))).rejects.toThrow(ConflictError);
    expectRefusedForGood(await rig.refundStore.get('ext-1'));
    expect(await eurBalance()).toBe(before);
  });

  test('the sweep does not adopt it after a send of ours whose outcome was lost', async () => {
    await foreignWithdrawal('ext-2', '5', OTHER_ADDRESS);
    await lostSend(refund('ext-2'), false);

    rig.clock.ms += 3_600_000;
    expect((await rig.sweep()).refundsChecked).toBe(1);

    expectRefusedForGood(await rig.refundStore.get('ext-2'));
    expect((await rig.sweep()).refundsChecked).toBe(0);
  });

  test('a retry taking over a lost send does not adopt it, and sends nothing', async () => {
    await foreignWithdrawal('ext-3', '7', OTHER_ADDRESS); // same amount and currencies, another address
    await lostSend(refund('ext-3'), false);
    const before = await eurBalance();

    const error = await rig.refunds.create(refund('ext-3')).catch((e: unknown) => e);

    expect(error).toMatchObject({ constructor: ConflictError, code: 'duplicate_foreign_id' });
    expectRefusedForGood(await rig.refundStore.get('ext-3'));
    expect(await eurBalance()).toBe(before);
  });
});

describe('our own withdrawal whose answer was lost', () => {
  test('the sweep adopts it', async () => {
    await lostSend(refund('ours-1'), true);

    rig.clock.ms += 3_600_000;
    await rig.sweep();

    const record = await rig.refundStore.get('ours-1');
    expect(record).toMatchObject({
      phase: 'sent',
      status: 'processing',
      withdrawal: { id: await withdrawalIdAtService('ours-1') },
    });
    expect(new Decimal(record!.withdrawal!.senderAmount).eq(7)).toBe(true);
  });

  test('a retry taking over adopts it without sending again', async () => {
    const before = await eurBalance();
    await lostSend(refund('ours-2'), true);

    const { record } = await rig.refunds.create(refund('ours-2'));

    expect(record).toMatchObject({
      phase: 'sent',
      withdrawal: { id: await withdrawalIdAtService('ours-2') },
    });
    expect(new Decimal(before).minus(await eurBalance()).toString()).toBe('7');
  });
});

test('a refund the service refuses is final and shows the service its reason, not our client its message', async () => {
  await expect(rig.refunds.create(refund('refund-too-much', { senderAmount: '99999999' }))).rejects.toThrow();

  const view = refundView((await rig.refundStore.get('refund-too-much'))!);

  expect(view).toMatchObject({
    status: 'rejected',
    final: true,
    failure_message: 'sender_amount: Insufficient funds.',
  });
});

/** An order paid in full and credited: what it netted, to refund. */
async function paidOrder(foreignId: string): Promise<string> {
  const { record } = await rig.invoices.checkout(checkoutRequest(foreignId));
  await rig.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' });
  const paid = await rig.invoices.refresh(record, 'lookup');
  expect(paid).toMatchObject({ status: 'confirmed', settlement: { currency: 'EUR' } });
  return paid!.settlement!.net;
}

/** The refunds over the same stores and orders, with the service's lookup by foreign_id answered so. */
function refundsWithLookup(findWithdrawal: ProcessingApi['findWithdrawal']): RefundService {
  const processing: ProcessingApi = Object.assign(Object.create(new ProcessingAdapter(rig.client)), {
    findWithdrawal,
  });
  const timing = { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
  return new RefundService(rig.refundStore, oneAccount(processing), timing, rig.invoices);
}

/** The order's reservation of the refund, and what the order has left. */
async function reservationOf(order: string, refundForeignId: string) {
  const record = await rig.invoiceStore.get(order);
  return {
    entry: record?.refunds?.find((entry) => entry.foreignId === refundForeignId)?.state,
    refundable: record?.refundable,
  };
}

const withdrawalCreates = async () =>
  (await rig.control('GET', '/requests?path=/v2/crypto/withdrawal_instant_exchange')).requests
    .length as number;

describe("an order refund whose send may have reached the service, when the lookup's answer is a refusal", () => {
  test('a retry keeps the refund unknown and its reservation; the sweep adopts it later', async () => {
    const net = await paidOrder('order-lr');
    const ask = { foreignId: 'order-lr-r1', invoiceForeignId: 'order-lr', address: OUR_ADDRESS };
    await lostSend(ask, true);
    const refused = new ServiceError('refused', 'getTransaction: foreign_id: is invalid', {
      code: 'validation_failed',
      reason: 'foreign_id: is invalid',
    });

    await expect(refundsWithLookup(() => Promise.reject(refused)).create(ask)).rejects.toThrow(ServiceError);

    // The withdrawal may be out: not refused, and its amount still counts against the order.
    expect(await rig.refundStore.get('order-lr-r1')).toMatchObject({ phase: 'unknown', error: null });
    expect(await reservationOf('order-lr', 'order-lr-r1')).toEqual({
      entry: 'pending',
      refundable: '0.00000000',
    });
    rig.clock.ms += 3_600_000;
    await rig.sweep();
    expect(await rig.refundStore.get('order-lr-r1')).toMatchObject({
      phase: 'sent',
      withdrawal: { id: await withdrawalIdAtService('order-lr-r1'), senderAmount: net },
    });
  });
});

describe('a send whose outcome stayed unknown and that no lookup finds', () => {
  test('holds its reservation through one look; at the next the sweep sends it again, once', async () => {
    const net = await paidOrder('order-nf');
    const before = await eurBalance();
    await lostSend({ foreignId: 'order-nf-r1', invoiceForeignId: 'order-nf', address: OUR_ADDRESS }, false);
    expect(await withdrawalCreates()).toBe(1);

    rig.clock.ms += SWEEP_TIMING.staleAfterMs;
    expect(await rig.sweep()).toMatchObject({ refundsChecked: 1, failures: 0 });

    expect(await rig.refundStore.get('order-nf-r1')).toMatchObject({ phase: 'unknown' });
    expect(await reservationOf('order-nf', 'order-nf-r1')).toEqual({
      entry: 'pending',
      refundable: '0.00000000',
    });
    expect(await withdrawalCreates()).toBe(1);

    rig.clock.ms += SWEEP_TIMING.staleAfterMs;
    expect(await rig.sweep()).toMatchObject({ refundsChecked: 1, failures: 0 });

    const sent = await rig.refundStore.get('order-nf-r1');
    expect(sent).toMatchObject({ phase: 'sent', status: 'processing', withdrawal: { senderAmount: net } });
    expect(sent!.withdrawal!.id).toBe(await withdrawalIdAtService('order-nf-r1'));
    expect(await withdrawalCreates()).toBe(2);
    expect(new Decimal(before).minus(await eurBalance()).eq(net)).toBe(true);
    rig.clock.ms += SWEEP_TIMING.staleAfterMs;
    await rig.sweep();
    expect(await withdrawalCreates()).toBe(2);
  });

  test('sent again and refused, it is rejected with the reason: settled, not a failure of the sweep', async () => {
    await lostSend(refund('never-fits', { senderAmount: '99999999' }), false);

    rig.clock.ms += SWEEP_TIMING.staleAfterMs;
    await rig.sweep();
    rig.clock.ms += SWEEP_TIMING.staleAfterMs;
    expect(await rig.sweep()).toMatchObject({ refundsChecked: 1, failures: 0 });

    expect(await rig.refundStore.get('never-fits')).toMatchObject({
      phase: 'rejected',
      error: 'sender_amount: Insufficient funds.',
    });
    expect((await rig.sweep()).refundsChecked).toBe(0);
  });

  test('sent again when the service did have it, it is refused as a duplicate and adopted: one withdrawal', async () => {
    const before = await eurBalance();
    await lostSend(refund('hidden-1'), true);
    const blind = refundsWithLookup(() => Promise.resolve(undefined));
    const look = async () => {
      const record = (await rig.refundStore.get('hidden-1'))!;
      await blind.refresh(record, 'reconcile');
      await blind.markSwept('hidden-1');
    };

    rig.clock.ms += SWEEP_TIMING.staleAfterMs;
    await look();
    expect(await rig.refundStore.get('hidden-1')).toMatchObject({ phase: 'unknown' });
    rig.clock.ms += SWEEP_TIMING.staleAfterMs;
    await look();

    expect(await rig.refundStore.get('hidden-1')).toMatchObject({
      phase: 'sent',
      withdrawal: { id: await withdrawalIdAtService('hidden-1') },
    });
    expect(await withdrawalCreates()).toBe(2);
    expect(new Decimal(before).minus(await eurBalance()).toString()).toBe('7');
  });
});

describe('a refused order refund whose foreign_id is claimed again', () => {
  test('the new claim carries nothing of what the refused one meant to send: if it dies before its reservation, nothing is sent', async () => {
    const netA = await paidOrder('order-ra');
    await paidOrder('order-rb');
    const funds = await eurBalance();
    await rig.control('POST', '/balances', { currency: 'EUR', balance: '0' });
    const first = { foreignId: 'reused-1', invoiceForeignId: 'order-ra', address: OTHER_ADDRESS };
    await expect(rig.refunds.create(first)).rejects.toThrow(/Insufficient funds/);
    expect(await rig.refundStore.get('reused-1')).toMatchObject({
      phase: 'rejected',
      sends: { address: OTHER_ADDRESS },
    });
    await rig.control('POST', '/balances', { currency: 'EUR', balance: funds });

    // The same foreign_id for another order; the order's store fails before anything is reserved.
    const orders = Object.assign(Object.create(rig.invoices), {
      reserveRefund: () => Promise.reject(new Error('The order store failed')),
    });
    const timing = { now: () => rig.clock.ms, leaseMs: 45_000, waitMs: 5_000, pollMs: 100 };
    const failing = new RefundService(
      rig.refundStore,
      oneAccount(new ProcessingAdapter(rig.client)),
      timing,
      orders,
    );
    const second = {
      foreignId: 'reused-1',
      invoiceForeignId: 'order-rb',
      address: OUR_ADDRESS,
      debitedAmount: '1',
    };
    await expect(failing.create(second)).rejects.toThrow('The order store failed');
    expect((await rig.refundStore.get('reused-1'))?.sends).toBeUndefined();

    for (let look = 0; look < 3; look++) {
      rig.clock.ms += SWEEP_TIMING.staleAfterMs;
      expect(await rig.sweep()).toMatchObject({ failures: 0 });
    }

    expect(await withdrawalCreates()).toBe(1);
    expect(await eurBalance()).toBe(funds);
    // Kept as refused, not deleted, while the first refusal's event waits for the dispatcher.
    expect(await rig.refundStore.get('reused-1')).toMatchObject({
      phase: 'rejected',
      error: 'The refund was never sent',
      withdrawal: null,
    });
    expect(await reservationOf('order-ra', 'reused-1')).toEqual({ entry: 'failed', refundable: netA });
    expect(await reservationOf('order-rb', 'reused-1')).toMatchObject({ entry: undefined });
  });
});

describe('a refund event not yet delivered', () => {
  const pendingTypes = async (foreignId: string) =>
    (await rig.refundStore.get(foreignId))?.outbox?.pending.map((event) => event.type);

  test('outlives a retry of the foreign_id that the order refuses: the record the retry took over is put back', async () => {
    await expect(rig.refunds.create(refund('ref-events', { senderAmount: '99999999' }))).rejects.toThrow();
    expect(await pendingTypes('ref-events')).toEqual(['refund.failed']);
    const net = await paidOrder('order-events');

    const overTheBound: OrderRefundRequest = {
      foreignId: 'ref-events',
      invoiceForeignId: 'order-events',
      debitedAmount: new Decimal(net).plus(1).toFixed(8),
      address: OUR_ADDRESS,
    };
    await expect(rig.refunds.create(overTheBound)).rejects.toMatchObject({
      code: 'refund_exceeds_refundable',
    });

    // The earlier refusal is put back as it was: its event still waits, and the refused retry made none.
    expect(await pendingTypes('ref-events')).toEqual(['refund.failed']);
    expect(await rig.refundStore.get('ref-events')).toMatchObject({
      phase: 'rejected',
      error: 'sender_amount: Insufficient funds.',
    });
  });
});
