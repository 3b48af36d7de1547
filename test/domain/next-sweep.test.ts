import type { InvoiceRecord, RefundRecord } from '../../domain/model';
import { nextSweepAt } from '../../domain/reconcile';

const timing = { staleAfterMs: 300_000, expiryGraceMs: 60_000 };

const invoice = (overrides: Partial<InvoiceRecord>): InvoiceRecord =>
  ({
    foreignId: 'order-1',
    phase: 'sent',
    claimedAt: 1_000,
    updatedAt: 2_000,
    invoice: { release_at: 1_000 },
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

  test('a timed invoice is due after its expiry and grace, then once per stale period', () => {
    expect(nextSweepAt(invoice({}), timing)).toBe(1_060_000);
    expect(nextSweepAt(invoice({ sweptAt: 1_100_000 }), timing)).toBe(1_400_000);
  });

  test('an invoice without a timer is due once it has been quiet for the stale period', () => {
    const timerless = { invoice: { release_at: null } } as unknown as Partial<InvoiceRecord>;
    expect(nextSweepAt(invoice(timerless), timing)).toBe(302_000);
    expect(nextSweepAt(invoice({ ...timerless, sweptAt: 500_000 }), timing)).toBe(800_000);
  });

  test('a sent refund is due at once, then once per stale period', () => {
    expect(nextSweepAt(refund({}), timing)).toBe(2_000);
    expect(nextSweepAt(refund({ sweptAt: 10_000 }), timing)).toBe(310_000);
  });
});
