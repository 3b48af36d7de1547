import type { InvoiceService } from './invoices';
import type { InvoiceRecord, RefundRecord } from './model';
import type { Owned } from './ports';
import { claimDueAt } from './refund-claims';
import type { RefundService } from './refunds';
import type { StoreId } from './stores';
import { AWAITING_APPROVAL, awaitsLateMoney, isFinal, LATE_MONEY_WATCH_MS } from './status';

export interface SweepReport {
  refundsChecked: number;
  invoicesChecked: number;
  invoicesAbandoned: number;
  /** Records whose look failed: each is pushed back in the queue, behind the others, and looked at again later. */
  failures: number;
  /** Due records left for the next run because this one's time ran low. */
  deferred: number;
  /** Late-money watches ended though every attempt at their last look failed (see LAST_LOOK_ATTEMPTS). */
  watchesEndedUnseen: number;
}

export interface SweepTiming {
  /** A create still unresolved after this long is given up on (invoices) or looked up (refunds). */
  staleAfterMs: number;
  /** How long the service's callback gets before the sweep looks an invoice up: after creation, after expiry. */
  expiryGraceMs: number;
}

export interface SweepOptions extends SweepTiming {
  now: () => number;
  batch: number;
  /** Time left in this run. */
  timeLeftMs: () => number;
  /** No record is taken with less time left than this: what one record's calls and writes may need. */
  recordReserveMs: number;
  /** The wait before each further attempt at a watch's last look; LAST_LOOK_PAUSE_MS unless given. */
  lastLookPauseMs?: number;
}

/**
 * Attempts at a late-money watch's last look within one run: the watch ends when that look is marked, so a look
 * that failed would end it unseen. When every attempt fails the watch ends all the same, counted in
 * `watchesEndedUnseen`; one cut short by the run's time is left due for the next run.
 */
export const LAST_LOOK_ATTEMPTS = 3;
/** Gives a passing fault of the service's time to clear between the last look's attempts. */
export const LAST_LOOK_PAUSE_MS = 1_000;

/**
 * When the sweep should next look at an open record. The open-items index is ordered by it, so the sweep reads
 * only what is due, oldest first, and records that are not due yet never crowd out those that are.
 */
export function nextSweepAt(record: InvoiceRecord | RefundRecord, timing: SweepTiming): number {
  // A checkout's claim is due when its invoice first is once answered, so that the answer leaves the claim's
  // open-items entry where it is: no index write. The sweep leaves such a claim alone until it is stale.
  if ('invoice' in record && isFirstClaim(record)) return record.createdAt + timing.expiryGraceMs;
  // A claim link needs nothing until it expires or the store cancels it.
  if (record.phase === 'claimable' && 'claimLink' in record && record.claimLink) {
    return claimDueAt(record.claimLink);
  }
  // An unresolved create is due once its lease is stale, and again a stale period after each look, so one the
  // service never received (a refund the lookup cannot find) moves behind the others instead of heading the queue.
  if (record.phase !== 'sent') return Math.max(record.claimedAt, record.sweptAt ?? 0) + timing.staleAfterMs;
  if ('invoice' in record) return nextInvoiceLook(record, timing);
  if (record.sweptAt === undefined) return record.updatedAt;
  if (record.status === AWAITING_APPROVAL) return nextApprovalLook(record, record.sweptAt, timing);
  return record.sweptAt + timing.staleAfterMs;
}

/**
 * A withdrawal held for approval may wait days for an owner, and its callbacks bring the news: the sweep only backs
 * them up, every eighth of the time it has waited since its last change, from a stale period up to an hour apart.
 */
function nextApprovalLook(record: RefundRecord, sweptAt: number, timing: SweepTiming): number {
  const waited = Math.max(sweptAt - record.updatedAt, 0);
  return sweptAt + Math.min(Math.max(waited / AGE_FRACTION, timing.staleAfterMs), MAX_WAIT_MS);
}

// An open invoice is looked up a grace after creation, every 2 minutes until past a 15-minute timer, then every
// eighth of its age, at most hourly: lost news shows in minutes, and old open invoices cost few reads.
const MIN_WAIT_MS = 120_000;
const AGE_FRACTION = 8;
const MAX_WAIT_MS = 3_600_000;

/** A checkout's first claim, not answered yet and never looked at. */
function isFirstClaim(record: InvoiceRecord): boolean {
  return record.phase === 'sending' && record.sweptAt === undefined && record.claimedAt === record.createdAt;
}

/** Whether an unresolved create's claim is old enough to give up on: no invocation or retry is still at it. */
function isStale(record: InvoiceRecord, now: number, timing: SweepTiming): boolean {
  return now - record.claimedAt >= timing.staleAfterMs;
}

// A final invoice that late money may reach is watched for a day in case such money is credited. Its
// callbacks bring that news; the sweep only backs them up: 10 minutes after the last change, then each look four
// times further from it (40 minutes, under 3 hours, under 11 hours), and the last a day after it.
const LATE_MONEY_FIRST_LOOK_MS = 600_000;
const LATE_MONEY_SPREAD = 4;

function nextInvoiceLook(record: InvoiceRecord, timing: SweepTiming): number {
  const { createdAt, sweptAt } = record;
  if (isFinal(record.status) && awaitsLateMoney(record)) {
    const since = Math.max((sweptAt ?? 0) - record.updatedAt, 0);
    const wait = Math.max(since * LATE_MONEY_SPREAD, LATE_MONEY_FIRST_LOOK_MS);
    return record.updatedAt + Math.min(wait, LATE_MONEY_WATCH_MS);
  }
  if (sweptAt === undefined) return createdAt + timing.expiryGraceMs;
  const wait = Math.min(Math.max((sweptAt - createdAt) / AGE_FRACTION, MIN_WAIT_MS), MAX_WAIT_MS);
  // A timer invoice is also looked at once its expiry has had its grace: the service fails it unpaid then.
  const releaseAt = record.invoice?.releaseAt;
  const afterExpiry = releaseAt ? releaseAt * 1000 + timing.expiryGraceMs : undefined;
  const next = sweptAt + wait;
  return afterExpiry !== undefined && afterExpiry > sweptAt ? Math.min(next, afterExpiry) : next;
}

/** Whether marking a final invoice looked at now ends its late-money watch (see `isOpen`). */
function endsWatch(record: InvoiceRecord, now: number): boolean {
  return isFinal(record.status) && awaitsLateMoney(record) && now >= record.updatedAt + LATE_MONEY_WATCH_MS;
}

/** What the sweep works on: every store's due records, each looked at through its own store's services. */
export interface SweptStores {
  /** Every store's open records due by `now`, the longest due first (one queue for all stores). */
  dueInvoices(limit: number, now: number): Promise<Array<Owned<InvoiceRecord>>>;
  dueRefunds(limit: number, now: number): Promise<Array<Owned<RefundRecord>>>;
  invoicesFor(storeId: StoreId): InvoiceService;
  refundsFor(storeId: StoreId): RefundService;
}

/**
 * Refreshes open refunds and invoices and gives up on creates whose outcome stayed unknown, marking even a failed
 * look so that records that always fail never starve the rest (docs/internals.md, "Nothing is left behind").
 */
export async function sweep(stores: SweptStores, options: SweepOptions): Promise<SweepReport> {
  const report: SweepReport = {
    refundsChecked: 0,
    invoicesChecked: 0,
    invoicesAbandoned: 0,
    failures: 0,
    deferred: 0,
    watchesEndedUnseen: 0,
  };
  const now = options.now();
  const pauseMs = options.lastLookPauseMs ?? LAST_LOOK_PAUSE_MS;
  /** Waits before another attempt if the run's time allows one after the wait. */
  const pauseIfTimeLasts = async (): Promise<boolean> => {
    if (options.timeLeftMs() - pauseMs < options.recordReserveMs) return false;
    if (pauseMs > 0) await new Promise((resolve) => setTimeout(resolve, pauseMs));
    return true;
  };
  const attempt = async (work: () => Promise<unknown>) => {
    try {
      await work();
    } catch {
      report.failures++;
    }
  };
  /**
   * Looks at the listed record, not a fresh read (see `mutate`), up to `attempts` times, then marks it even if the
   * look failed; answers `left`, unmarked and still due, when the run's time ran out first.
   */
  const look = async <T>(
    listed: T,
    work: (record: T) => Promise<T | undefined>,
    mark: (seen: T) => Promise<void>,
    attempts = 1,
  ): Promise<'looked' | 'failed' | 'left'> => {
    let seen: T | undefined;
    for (let attempt = 1; seen === undefined && attempt <= attempts; attempt++) {
      if (attempt > 1 && !(await pauseIfTimeLasts())) {
        report.failures++;
        report.deferred++;
        return 'left';
      }
      try {
        seen = (await work(listed)) ?? listed;
      } catch {
        // Tried again while attempts are left; marked as listed when none are.
      }
    }
    let failed = seen === undefined;
    try {
      await mark(seen ?? listed);
    } catch {
      failed = true;
    }
    if (failed) report.failures++;
    return seen === undefined ? 'failed' : 'looked';
  };
  function* whileTimeLasts<T>(records: T[]): Generator<T> {
    for (const [index, record] of records.entries()) {
      if (options.timeLeftMs() < options.recordReserveMs) {
        report.deferred += records.length - index;
        return;
      }
      yield record;
    }
  }

  for (const { storeId, record: refund } of whileTimeLasts(await stores.dueRefunds(options.batch, now))) {
    const refunds = stores.refundsFor(storeId);
    report.refundsChecked++;
    await look(
      refund,
      (listed) => refunds.refresh(listed, 'reconcile', { listed: true }),
      (seen) => refunds.markSwept(refund.foreignId, seen),
    );
  }
  for (const { storeId, record: invoice } of whileTimeLasts(await stores.dueInvoices(options.batch, now))) {
    const invoices = stores.invoicesFor(storeId);
    if (invoice.phase !== 'sent' && !isStale(invoice, now, options)) {
      // A first claim is due before it is stale (see nextSweepAt): looked at, it waits a stale period more.
      report.invoicesChecked++;
      await attempt(() => invoices.markSwept(invoice.foreignId, invoice));
    } else if (invoice.phase !== 'sent') {
      report.invoicesAbandoned++;
      await attempt(() => invoices.abandon(invoice));
    } else {
      report.invoicesChecked++;
      const lastLook = endsWatch(invoice, options.now());
      const looked = await look(
        invoice,
        (listed) => invoices.refresh(listed, 'reconcile', { listed: true }),
        (seen) => invoices.markSwept(invoice.foreignId, seen),
        lastLook ? LAST_LOOK_ATTEMPTS : 1,
      );
      if (lastLook && looked === 'failed') report.watchesEndedUnseen++;
    }
  }
  return report;
}
