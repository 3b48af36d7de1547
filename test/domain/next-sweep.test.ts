import type { InvoiceRecord, RefundRecord } from '../../domain/model';
import { nextSweepAt } from '../../domain/reconcile';
import { LATE_MONEY_WATCH_MS, isOpen } from '../../domain/status';

const timing = { staleAfterMs: 300_000, expiryGraceMs: 60_000 };

const invoice = (overrides: Partial<InvoiceRecord>): InvoiceRecord =>
  ({
    foreignId: 'order-1',
    phase: 'sent',
    claimedAt: 1_000,
    updatedAt: 2_000,
    invoice: { releaseAt: 1_000 },
    ...overrides,
  }) as InvoiceRecord;

const refund = (overrides: Partial<RefundRecord>): RefundRecord =>
  ({
    foreignId: 'refund-1',
    phase: 'sent',
    claimedAt: 1_000,
    updatedAt: 2_000,
    ...overrides,
  }) as RefundRecord;

describe('nextSweepAt', () => {
  test('an unresolved create is due when its lease is stale', () => {
    expect(nextSweepAt(invoice({ phase: 'unknown' }), timing)).toBe(301_000);
    expect(nextSweepAt(refund({ phase: 'sending' }), timing)).toBe(301_000);
  });

  test("a checkout's first claim is due when its invoice first is once answered: the answer keeps its index entry", () => {
    const claim = invoice({ phase: 'sending', createdAt: 500_000, claimedAt: 500_000, invoice: null });
    const answered = invoice({ phase: 'sent', createdAt: 500_000, claimedAt: 500_000, updatedAt: 500_100 });
    expect(nextSweepAt(claim, timing)).toBe(560_000);
    expect(nextSweepAt(answered, timing)).toBe(560_000);
    // A claim taken over from an earlier attempt, or looked at already, waits until it is stale.
    expect(nextSweepAt({ ...claim, claimedAt: 700_000 }, timing)).toBe(1_000_000);
    expect(nextSweepAt({ ...claim, sweptAt: 560_000 }, timing)).toBe(860_000);
  });

  test('an unresolved create the sweep has looked at moves a stale period past that look, behind the others', () => {
    expect(nextSweepAt(refund({ phase: 'unknown', sweptAt: 900_000 }), timing)).toBe(1_200_000);
    expect(nextSweepAt(invoice({ phase: 'unknown', sweptAt: 900_000 }), timing)).toBe(1_200_000);
  });

  // The invoice field as the sweep reads it: only releaseAt matters.
  const timed = { createdAt: 0, invoice: { releaseAt: 900 } } as unknown as Partial<InvoiceRecord>;
  const timerless = { createdAt: 0, invoice: { releaseAt: null } } as unknown as Partial<InvoiceRecord>;

  test('an open invoice is first due a grace after its creation, with a timer or without', () => {
    expect(nextSweepAt(invoice({ ...timed, createdAt: 500_000 }), timing)).toBe(560_000);
    expect(nextSweepAt(invoice({ ...timerless, createdAt: 500_000 }), timing)).toBe(560_000);
  });

  test('then every two minutes while young, then an eighth of its age, never more than an hour apart', () => {
    const after = (sweptAt: number) => nextSweepAt(invoice({ ...timerless, sweptAt }), timing) - sweptAt;
    expect(after(60_000)).toBe(120_000);
    expect(after(15 * 60_000)).toBe(120_000);
    expect(after(32 * 60_000)).toBe(4 * 60_000);
    expect(after(4 * 3_600_000)).toBe(1_800_000);
    expect(after(30 * 86_400_000)).toBe(3_600_000);
  });

  test('a timer invoice is also due once its expiry has had its grace', () => {
    expect(nextSweepAt(invoice({ ...timed, sweptAt: 15 * 60_000 }), timing)).toBe(960_000);
    expect(nextSweepAt(invoice({ ...timed, sweptAt: 960_000 }), timing)).toBe(1_080_000);
  });

  test('a sent refund is due at once, then once per stale period', () => {
    expect(nextSweepAt(refund({}), timing)).toBe(2_000);
    expect(nextSweepAt(refund({ sweptAt: 10_000 }), timing)).toBe(310_000);
  });
});

test("a cancelled invoice's day of watching costs a handful of lookups, the first soon after the cancel", () => {
  // Callbacks bring news of money sent as the cancel went through; the watch only backs them up.
  const cancelledAt = 600_000;
  let record = invoice({
    createdAt: 0,
    status: 'failed',
    cancelled: true,
    updatedAt: cancelledAt,
    sweptAt: 300_000,
    invoice: { releaseAt: 900 } as InvoiceRecord['invoice'],
  });
  const looks: number[] = [];
  while (isOpen(record) && looks.length < 100) {
    const at = nextSweepAt(record, timing);
    looks.push(at - cancelledAt);
    record = { ...record, sweptAt: at };
  }
  expect(looks[0]).toBeLessThanOrEqual(10 * 60_000);
  expect(looks.at(-1)).toBe(LATE_MONEY_WATCH_MS);
  expect(looks.length).toBeLessThanOrEqual(6);
});
