// The sweep takes no record it has no time for: the rest stay due for the next run.
import type { InvoiceService } from '../../domain/invoices';
import type { InvoiceRecord, RefundRecord } from '../../domain/model';
import { sweep } from '../../domain/reconcile';
import type { RefundService } from '../../domain/refunds';
import { oneStore } from '../support/domain-rig';

const RESERVE_MS = 5_000;
/** What each record's work takes of the run's time. */
const RECORD_MS = 6_000;

function servicesWithTimeLeft(startMs: number, refundsDue: number, invoicesDue: number) {
  let left = startMs;
  const work = jest.fn(async () => {
    left -= RECORD_MS;
  });
  const record = (i: number) => ({ foreignId: `r-${i}`, phase: 'sent' }) as RefundRecord & InvoiceRecord;
  const due = (count: number) => async () =>
    Array.from({ length: count }, (_, i) => ({ storeId: 'default', record: record(i) }));
  const refunds = { listDue: due(refundsDue), refresh: work, markSwept: jest.fn(async () => undefined) };
  const invoices = { ...refunds, listDue: due(invoicesDue), abandon: work };
  return {
    work,
    run: () =>
      sweep(oneStore(invoices as unknown as InvoiceService, refunds as unknown as RefundService), {
        staleAfterMs: 1,
        expiryGraceMs: 1,
        now: Date.now,
        batch: 100,
        timeLeftMs: () => left,
        recordReserveMs: RESERVE_MS,
      }),
  };
}

it('stops taking records when its time runs low, and reports the rest as deferred without failing', async () => {
  const { work, run } = servicesWithTimeLeft(20_000, 3, 2);

  await expect(run()).resolves.toEqual({
    refundsChecked: 3,
    invoicesChecked: 0,
    invoicesAbandoned: 0,
    failures: 0,
    deferred: 2,
    watchesEndedUnseen: 0,
  });
  expect(work).toHaveBeenCalledTimes(3);
});

it('defers what is left of the refunds and every invoice when the time runs low among the refunds', async () => {
  const { work, run } = servicesWithTimeLeft(10_000, 3, 2);

  await expect(run()).resolves.toMatchObject({ refundsChecked: 1, invoicesChecked: 0, deferred: 4 });
  expect(work).toHaveBeenCalledTimes(1);
});

it('with time enough, sweeps everything due', async () => {
  const { run } = servicesWithTimeLeft(Infinity, 3, 2);

  await expect(run()).resolves.toMatchObject({ refundsChecked: 3, invoicesChecked: 2, deferred: 0 });
});
