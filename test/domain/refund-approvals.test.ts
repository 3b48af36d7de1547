// Refunds the payment service holds for an owner's approval: their status moves, the order's bound, their events,
// and how often the sweep looks at one that waits.
import type { InvoiceRecord, RefundEntry, RefundRecord } from '../../domain/model';
import { nextSweepAt } from '../../domain/reconcile';
import { refundableAmount, refundEnded, reservation } from '../../domain/refund-bound';
import { refundMovesForward } from '../../domain/status';
import { refundEvents } from '../../domain/webhooks';
import { refundView } from '../../http/views';
import { startDomainRig, SWEEP_TIMING, type DomainRig } from '../support/domain-rig';

describe('refundMovesForward', () => {
  test('pending (held for approval) → processing → a final status, never back', () => {
    expect(refundMovesForward(null, 'pending')).toBe(true);
    expect(refundMovesForward(null, 'processing')).toBe(true);
    expect(refundMovesForward('pending', 'processing')).toBe(true);
    // Where the service runs its compliance check after an approval, it may end `rejected`.
    expect(refundMovesForward('pending', 'verifying')).toBe(true);
    expect(refundMovesForward('verifying', 'processing')).toBe(true);
    expect(refundMovesForward('processing', 'verifying')).toBe(false);
    for (const final of ['confirmed', 'failed', 'declined', 'cancelled', 'rejected']) {
      expect(refundMovesForward('pending', final)).toBe(true);
      expect(refundMovesForward('processing', final)).toBe(true);
      expect(refundMovesForward(final, 'processing')).toBe(false);
      expect(refundMovesForward(final, 'confirmed')).toBe(false);
    }
    expect(refundMovesForward('processing', 'pending')).toBe(false);
    expect(refundMovesForward('pending', 'pending')).toBe(false);
    expect(refundMovesForward('processing', 'processing')).toBe(false);
  });

  test('a word the service never used for withdrawals moves nothing, inherited names included', () => {
    for (const word of ['created', 'constructor', 'toString', '__proto__', '']) {
      expect(refundMovesForward('pending', word)).toBe(false);
      expect(refundMovesForward(null, word)).toBe(false);
    }
  });
});

const entry = (foreignId: string, amount: string, state: RefundEntry['state']): RefundEntry => ({
  foreignId,
  debitedAmount: amount,
  currency: 'BTC',
  state,
  createdAt: 1,
});

describe("the order's bound", () => {
  test('declined and cancelled refunds no longer count; waiting and confirmed ones do', () => {
    const entries = [
      entry('a', '1', 'pending'),
      entry('b', '2', 'confirmed'),
      entry('c', '4', 'failed'),
      entry('d', '8', 'declined'),
      entry('e', '16', 'cancelled'),
    ];
    expect(refundableAmount('20', entries)).toBe('17.00000000');
  });

  test('a decline ends only a pending entry, and releases its amount', () => {
    const order = {
      foreignId: 'order-1',
      settlement: { currency: 'EUR', net: '10', fees: [] },
      refunds: [entry('r1', '6', 'pending')],
    } as unknown as InvoiceRecord;
    const ended = refundEnded(order, 'r1', 'declined', 5)!;
    expect(ended.refunds).toEqual([entry('r1', '6', 'declined')]);
    expect(ended.refundable).toBe('10.00000000');
    expect(refundEnded({ ...order, ...ended, version: 2 }, 'r1', 'confirmed', 6)).toBeUndefined();
  });

  test('a declined entry is not found as a reservation: its amount goes to the next refund', () => {
    const order = {
      foreignId: 'order-1',
      phase: 'sent',
      status: 'confirmed',
      payment: { currency: 'BTC', amount: '0.00046000', coverage: 'exact' },
      settlement: { currency: 'EUR', net: '10', fees: [] },
      refunds: [entry('r1', '10', 'declined')],
    } as unknown as InvoiceRecord;
    const ask = { foreignId: 'r2', invoiceForeignId: 'order-1', address: 'bc1q' };
    const { next, sends } = reservation(order, ask, 7, 7);
    expect(sends.senderAmount).toBe('10.00000000');
    expect(next!.refundable).toBe('0.00000000');
  });
});

describe('events', () => {
  const record = (status: string | null, phase: RefundRecord['phase'] = 'sent') =>
    ({ phase, status }) as RefundRecord;
  const typesOf = (...records: RefundRecord[]) =>
    records
      .slice(1)
      .flatMap((after, index) =>
        refundEvents.types(refundEvents.announced(records[index]), refundEvents.announced(after)),
      );

  test('held for approval, sent once approved, then confirmed', () => {
    expect(
      typesOf(record(null, 'sending'), record('pending'), record('processing'), record('confirmed')),
    ).toEqual(['refund.awaiting_approval', 'refund.sent', 'refund.confirmed']);
  });

  test.each(['declined', 'cancelled'])('held for approval, then %s', (status) => {
    expect(typesOf(record(null, 'sending'), record('pending'), record(status))).toEqual([
      'refund.awaiting_approval',
      `refund.${status}`,
    ]);
  });

  test("rejected by the service's compliance check after its approval: failed, as a refused refund is", () => {
    expect(
      typesOf(record(null, 'sending'), record('pending'), record('verifying'), record('rejected')),
    ).toEqual(['refund.awaiting_approval', 'refund.sent', 'refund.failed']);
  });

  test('a refund not held goes as before: sent, then confirmed or failed', () => {
    expect(typesOf(record(null, 'sending'), record('processing'), record('failed'))).toEqual([
      'refund.sent',
      'refund.failed',
    ]);
  });
});

describe("the sweep's looks at a refund waiting for approval", () => {
  const waiting = (sweptAt: number) =>
    ({ phase: 'sent', status: 'pending', claimedAt: 0, updatedAt: 0, sweptAt }) as unknown as RefundRecord;

  test('spread out as it waits, at most an hour apart; a processing one still every stale period', () => {
    expect(nextSweepAt({ ...waiting(0), sweptAt: undefined }, SWEEP_TIMING)).toBe(0);
    expect(nextSweepAt(waiting(60_000), SWEEP_TIMING)).toBe(60_000 + SWEEP_TIMING.staleAfterMs);
    expect(nextSweepAt(waiting(16 * 3_600_000), SWEEP_TIMING)).toBe(17 * 3_600_000);
    const day = 24 * 3_600_000;
    expect(nextSweepAt(waiting(3 * day), SWEEP_TIMING)).toBe(3 * day + 3_600_000);
    const processing = { ...waiting(3 * day), status: 'processing' } as RefundRecord;
    expect(nextSweepAt(processing, SWEEP_TIMING)).toBe(3 * day + SWEEP_TIMING.staleAfterMs);
  });
});

describe('through the sandbox, with every callback lost', () => {
  let rig: DomainRig;
  beforeEach(async () => {
    rig = await startDomainRig();
    await rig.control('POST', '/approval-limits', { currency: 'EUR', limit: '5' });
  });
  afterEach(() => rig.close());

  const request = (foreignId: string) => ({
    foreignId,
    senderCurrency: 'EUR',
    receivedCurrency: 'BTC',
    senderAmount: '7',
    address: 'bc1qrefundaddress0000000000000000000000',
  });
  const lookups = async () =>
    ((await rig.control('GET', '/requests?path=/v2/transactions/info')).requests as unknown[]).length;

  test('a refund over the limit waits, reads awaiting_approval, and the sweep follows it to declined', async () => {
    const { record } = await rig.refunds.create(request('held-1'));
    expect(record).toMatchObject({ phase: 'sent', status: 'pending' });
    expect(refundView(record)).toMatchObject({ status: 'awaiting_approval', final: false });

    // A repeat of the same news, or an older word, changes nothing.
    expect((await rig.refunds.applyNews('held-1', 'pending', 'callback')).outcome).toBe('ignored');
    await rig.control('POST', '/withdrawals/held-1/decline');
    rig.clock.ms += 1_000;
    expect((await rig.sweep()).refundsChecked).toBe(1);
    const declined = (await rig.refundStore.get('held-1'))!;
    expect(declined).toMatchObject({ status: 'declined', error: 'Withdrawal declined.' });
    expect(declined.history.map((change) => [change.status, change.source])).toEqual([
      ['pending', 'create'],
      ['declined', 'reconcile'],
    ]);
    expect(refundView(declined)).toMatchObject({ status: 'declined', final: true });
    expect((await rig.refunds.applyNews('held-1', 'processing', 'callback')).outcome).toBe('ignored');
  });

  test('over two days of waiting the sweep looks far less often than every stale period', async () => {
    await rig.refunds.create(request('held-long'));
    const before = await lookups();
    const start = rig.clock.ms;
    const twoDays = 48 * 3_600_000;
    while (rig.clock.ms - start < twoDays) {
      rig.clock.ms += SWEEP_TIMING.staleAfterMs;
      await rig.sweep();
    }
    const looks = (await lookups()) - before;
    // Every stale period would be 576 looks; after its first hours one an hour.
    expect(looks).toBeGreaterThan(24);
    expect(looks).toBeLessThan(100);
    expect(await rig.refundStore.get('held-long')).toMatchObject({ status: 'pending' });

    await rig.control('POST', '/withdrawals/held-long/approve');
    rig.clock.ms += 3_600_000;
    await rig.sweep();
    expect(await rig.refundStore.get('held-long')).toMatchObject({ status: 'processing' });
  });
});
