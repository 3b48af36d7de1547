// The deposits an invoice keeps: merged by the service's id, confirmations only growing, first seen first, bounded.
import { withDeposits, withNews } from '../../domain/invoice-news';
import { MAX_DEPOSITS } from '../../domain/model';
import type { ReportedDeposit } from '../../domain/model';
import { invoiceEvents, recordAsOf, withEvents } from '../../domain/webhooks';
import { sentInvoice } from '../support/records';

const reported = (id: number, confirmations = 0): ReportedDeposit => ({
  id,
  txid: `tx${id}`,
  amount: '0.00100000',
  currency: 'BTC',
  confirmations,
  address: 'bc1qaddress',
});

test('a new deposit is kept as seen then; a known one only gains confirmations', () => {
  const first = withDeposits(undefined, [reported(1)], 1_000)!;
  expect(first).toEqual([{ ...reported(1), seenAt: 1_000 }]);
  const grown = withDeposits(first, [reported(1, 3), reported(2)], 2_000)!;
  expect(grown).toEqual([
    { ...reported(1, 3), seenAt: 1_000 },
    { ...reported(2), seenAt: 2_000 },
  ]);
  // Older news, delivered late, moves nothing: the same array comes back.
  expect(withDeposits(grown, [reported(1, 1), reported(2)], 3_000)).toBe(grown);
  expect(withDeposits(grown, undefined, 3_000)).toBe(grown);
});

test('at most MAX_DEPOSITS, the first seen kept', () => {
  const many = Array.from({ length: MAX_DEPOSITS + 5 }, (_, index) => reported(index + 1));
  const kept = withDeposits(undefined, many, 1)!;
  expect(kept).toHaveLength(MAX_DEPOSITS);
  expect(withDeposits(kept, [reported(999)], 2)).toBe(kept);
  // A kept one still gains its confirmations.
  expect(withDeposits(kept, [reported(1, 6)], 2)![0].confirmations).toBe(6);
});

describe('news', () => {
  const record = sentInvoice('order-1', { status: 'pending' });
  const update = (deposits: ReportedDeposit[], status: 'pending' | 'processing' = 'pending') => ({
    upstreamForeignId: 'order-1',
    status,
    source: 'callback' as const,
    deposits,
  });

  test('a deposit alone is news; the same report again is not', () => {
    const next = withNews(record, update([reported(1)]), 5_000)!;
    expect(next.deposits).toEqual([{ ...reported(1), seenAt: 5_000 }]);
    expect(withNews({ ...next, version: 2 }, update([reported(1)]), 6_000)).toBeUndefined();
  });

  test('confirmations that grow are news, and a later status does not lose the deposits', () => {
    const seen = { ...withNews(record, update([reported(1)]), 5_000)!, version: 2 };
    const grown = withNews(seen, update([reported(1, 2)]), 6_000)!;
    expect(grown.deposits).toEqual([{ ...reported(1, 2), seenAt: 5_000 }]);
    const moved = withNews({ ...grown, version: 3 }, update([], 'processing'), 7_000)!;
    expect(moved.deposits).toEqual(grown.deposits);
  });
});

test('a waiting webhook event shows the deposits as its change left them, though it keeps only their confirmations', () => {
  const seen = withDeposits(undefined, [reported(1)], 1_000)!;
  const event = withEvents(invoiceEvents, sentInvoice('order-1', { deposits: seen }), 1_000);
  const [made] = event.outbox!.pending;
  expect(made.state).not.toHaveProperty('deposits');
  expect(made.state.depositConfirmations).toEqual([0]);
  // Since then: the first deposit was confirmed, a second one came.
  const later = { ...event, deposits: withDeposits(seen, [reported(1, 5), reported(2)], 2_000) };
  expect(recordAsOf(later, made).deposits).toEqual([{ ...reported(1, 0), seenAt: 1_000 }]);
  // An event made before any deposit shows none.
  const [before] = withEvents(invoiceEvents, sentInvoice('order-2'), 1).outbox!.pending;
  expect(recordAsOf({ ...sentInvoice('order-2'), deposits: seen }, before).deposits).toBeUndefined();
});
