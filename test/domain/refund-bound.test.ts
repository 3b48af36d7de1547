// An order's refunds never take more than it netted: the arithmetic, exact to 8 places, and the reservation.
import { ConflictError, RefundBoundError } from '../../domain/errors';
import type { InvoiceRecord, OrderRefundRequest, RefundEntry } from '../../domain/model';
import { MAX_REFUNDS_PER_ORDER, refundableAmount, refundEnded, reservation } from '../../domain/refund-bound';

const NOW = Date.UTC(2030, 0, 1);

const entry = (foreignId: string, debitedAmount: string, state: RefundEntry['state'] = 'pending') => ({
  foreignId,
  debitedAmount,
  currency: 'BTC',
  state,
  createdAt: NOW,
});

function paidOrder(overrides: Partial<InvoiceRecord> = {}): InvoiceRecord {
  return {
    foreignId: 'order-1',
    version: 3,
    phase: 'sent',
    request: { currency: 'EUR' } as InvoiceRecord['request'],
    claimedAt: NOW,
    status: 'confirmed',
    error: null,
    history: [],
    createdAt: NOW,
    updatedAt: NOW,
    attempt: 1,
    invoice: null,
    payment: { currency: 'BTC', amount: '0.00046000', coverage: 'exact' },
    settlement: { currency: 'EUR', net: '25.24500000', fees: [{ currency: 'EUR', amount: '0.25500000' }] },
    cancelled: false,
    ...overrides,
  };
}

const ask = (foreignId: string, overrides: Partial<OrderRefundRequest> = {}): OrderRefundRequest => ({
  foreignId,
  invoiceForeignId: 'order-1',
  address: 'bc1qrefund',
  ...overrides,
});

describe('refundableAmount', () => {
  test('the net less every refund that is not failed, to 8 places and never below zero', () => {
    expect(refundableAmount('25.245', undefined)).toBe('25.24500000');
    expect(
      refundableAmount('25.245', [
        entry('a', '0.1'),
        entry('b', '0.2', 'confirmed'),
        entry('c', '9', 'failed'),
      ]),
    ).toBe('24.94500000');
    // 0.1 + 0.2 is 0.3 exactly here, where floats make it 0.30000000000000004.
    expect(refundableAmount('0.3', [entry('a', '0.1'), entry('b', '0.2')])).toBe('0.00000000');
    expect(refundableAmount('1', [entry('a', '2')])).toBe('0.00000000');
  });

  test('a net the service wrote with more than 8 places is cut to 8, never rounded up past it', () => {
    expect(refundableAmount('0.123456785', undefined)).toBe('0.12345678');
    expect(refundableAmount('0.123456789999', [entry('a', '0.1')])).toBe('0.02345678');
    const order = paidOrder({ settlement: { currency: 'ETH', net: '0.123456785', fees: [] } });
    expect(reservation(order, ask('r-1'), NOW, NOW).sends.senderAmount).toBe('0.12345678');
  });
});

describe('reservation', () => {
  test('by default: all that is left, from the currency credited, to the currency the customer paid in', () => {
    const { next, sends } = reservation(paidOrder(), ask('r-1'), NOW, NOW);
    // The address is the refund's to add: its request's, or its customer's through a claim link.
    expect(sends).toEqual({
      foreignId: 'r-1',
      senderCurrency: 'EUR',
      senderAmount: '25.24500000',
      receivedCurrency: 'BTC',
    });
    expect(next?.refunds).toEqual([entry('r-1', '25.24500000')]);
    expect(next?.refundable).toBe('0.00000000');
  });

  test('an amount and a currency given are kept within the bound, to the last unit', () => {
    const order = paidOrder({ refunds: [entry('r-1', '25.24499999')], refundable: '0.00000001' });
    const { next, sends } = reservation(
      order,
      ask('r-2', { debitedAmount: '0.00000001', currency: 'ETH' }),
      NOW,
      NOW,
    );
    expect(sends).toMatchObject({ senderAmount: '0.00000001', receivedCurrency: 'ETH' });
    expect(next?.refundable).toBe('0.00000000');
  });

  test('more than is left is refused naming what is left; nothing left refuses the default too', () => {
    const order = paidOrder({ refunds: [entry('r-1', '25'), entry('r-0', '5', 'failed')] });
    const over = () => reservation(order, ask('r-2', { debitedAmount: '0.24500001' }), NOW, NOW);
    expect(over).toThrow(RefundBoundError);
    expect(catchError(over)).toMatchObject({
      code: 'refund_exceeds_refundable',
      refundable: { amount: '0.24500000', currency: 'EUR' },
    });
    const spent = paidOrder({ refunds: [entry('r-1', '25.245')] });
    expect(catchError(() => reservation(spent, ask('r-2'), NOW, NOW))).toMatchObject({
      refundable: { amount: '0.00000000', currency: 'EUR' },
    });
  });

  test('a refund already reserved finds its entry and changes nothing', () => {
    const order = paidOrder({ refunds: [entry('r-1', '3')] });
    const again = reservation(order, ask('r-1', { debitedAmount: '3' }), NOW, NOW + 1);
    expect(again.next).toBeUndefined();
    expect(again.sends.senderAmount).toBe('3');
  });

  test.each([
    ['awaiting payment', { status: 'pending' as const, settlement: undefined }],
    ['paid but not yet credited', { settlement: undefined }],
    ['cancelled', { status: 'failed' as const, cancelled: true, payment: null, settlement: undefined }],
    [
      'confirmed with less than due',
      { payment: { currency: 'BTC', amount: '0.00023000', due: '0.00046000', coverage: 'short' as const } },
    ],
    ['underpaid', { status: 'failed' as const, error: 'User paid less than required.' }],
  ])('an order %s is not refundable', (_name, overrides) => {
    expect(catchError(() => reservation(paidOrder(overrides), ask('r-1'), NOW, NOW))).toMatchObject({
      code: 'invoice_not_refundable',
    });
  });

  test('an order cancelled as its payment came is refundable up to what the service credited', () => {
    const cancelled = paidOrder({ status: 'failed', cancelled: true });
    expect(reservation(cancelled, ask('r-1'), NOW, NOW).sends.senderAmount).toBe('25.24500000');
  });

  test('an order paid late is refundable', () => {
    const late = paidOrder({
      status: 'failed',
      error: 'Timer expired. User not paid.',
      payment: { currency: 'BTC', amount: '0.00046000', late: true },
    });
    expect(reservation(late, ask('r-1'), NOW, NOW).sends.senderAmount).toBe('25.24500000');
  });

  test(`at most ${MAX_REFUNDS_PER_ORDER} refunds count at once; failed ones make room and stay under the cap`, () => {
    const counted = Array.from({ length: MAX_REFUNDS_PER_ORDER }, (_, i) => entry(`r-${i}`, '0.01'));
    expect(
      catchError(() => reservation(paidOrder({ refunds: counted }), ask('r-x'), NOW, NOW)),
    ).toMatchObject({
      code: 'too_many_refunds',
    });
    const withFailed = [entry('gone', '1', 'failed'), ...counted.slice(1)];
    const { next } = reservation(
      paidOrder({ refunds: withFailed }),
      ask('r-x', { debitedAmount: '1' }),
      NOW,
      NOW,
    );
    expect(next?.refunds).toHaveLength(MAX_REFUNDS_PER_ORDER);
    expect(next?.refunds?.map((kept) => kept.foreignId)).not.toContain('gone');
  });
});

describe('refundEnded', () => {
  test('a failed refund no longer counts; a confirmed one still does; an ended one never changes again', () => {
    const order = paidOrder({ refunds: [entry('r-1', '5'), entry('r-2', '5')], refundable: '15.24500000' });
    const failed = refundEnded(order, 'r-1', 'failed', NOW)!;
    expect(failed.refundable).toBe('20.24500000');
    const confirmed = refundEnded({ ...failed, version: 4 }, 'r-2', 'confirmed', NOW)!;
    expect(confirmed.refundable).toBe('20.24500000');
    expect(refundEnded({ ...confirmed, version: 5 }, 'r-2', 'failed', NOW)).toBeUndefined();
    expect(refundEnded(order, 'unknown', 'failed', NOW)).toBeUndefined();
  });
});

function catchError(run: () => unknown): ConflictError | undefined {
  try {
    run();
  } catch (error) {
    return error as ConflictError;
  }
  return undefined;
}
