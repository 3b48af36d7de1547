// The life every invoice and refund record shares: claimed once per foreign_id, sent, answered or released, and
// looked at by the sweep while open. ClaimedRecords is that life over a store; each service adds only its own.
import { randomUUID } from 'node:crypto';
import { ConflictError, InProgressError, NotFoundError } from './errors';
import { isSameRequest } from './hash';
import type { ClaimedRecord, Phase, StatusChange, StatusNews } from './model';
import type { OpenItems, Owned, VersionedStore } from './ports';
import type { AccountKind } from './stores';
import { carriedOutbox, withEvents, type EventKind } from './webhooks';

/** The part of an invoice or refund record that the claim protocol reads. */
export interface Claimable {
  foreignId: string;
  version: number;
  phase: Phase;
  request: object;
  claimedAt: number;
  claimId?: string;
  /** A refund handed to its customer's claim link: its create is done, whatever has become of its send since. */
  claimLink?: object;
}

export interface ClaimTiming {
  now: () => number;
  /** How long a `sending` claim is honoured; longer than one upstream call can take. */
  leaseMs: number;
  /** How long a concurrent duplicate waits for the claim holder's answer before giving up with 409. */
  waitMs: number;
  pollMs: number;
}

export interface Claim<T> {
  record: T;
  /** True when this caller holds the claim and must talk to the service; false when the record already answers. */
  owned: boolean;
  /** The record this claim took over, if any: its phase tells whether an earlier send may have reached the service. */
  previous?: T;
}

/** A claim taken over from these phases may follow a send that reached the service without our hearing back. */
export function mayHaveBeenSent(previous: { phase: string } | undefined): boolean {
  return previous?.phase === 'unknown' || previous?.phase === 'sending';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A claim whose holder may still be sending, and will then write the record over the version it claimed. */
function leaseHeld(record: { phase: string; claimedAt: number }, timing: ClaimTiming): boolean {
  return record.phase === 'sending' && timing.now() - record.claimedAt < timing.leaseMs;
}

/**
 * Claims a foreign_id with conditional writes, so that exactly one caller talks to the service for it.
 * Duplicates of a settled request get the stored record; a different request for the same id is a conflict.
 */
export async function claim<T extends Claimable>(
  store: VersionedStore<T>,
  fresh: T,
  timing: ClaimTiming,
  takeOver: (existing: T) => T,
  sameRequest: (existing: T) => boolean = (existing) => isSameRequest(existing, fresh.request),
): Promise<Claim<T>> {
  if (await store.create(fresh)) return { record: fresh, owned: true };
  const deadline = timing.now() + timing.waitMs;
  // The record a take-over last tried to write over: the write may have landed though its answer was lost.
  let triedOver: T | undefined;
  for (;;) {
    const existing = await store.get(fresh.foreignId);
    if (!existing) {
      if (await store.create(fresh)) return { record: fresh, owned: true };
      continue;
    }
    // A retried write whose first attempt landed is refused by its own condition: the record is ours all the same.
    if (fresh.claimId !== undefined && existing.claimId === fresh.claimId)
      return { record: existing, owned: true, previous: triedOver };
    // Nothing was made of a refused or unsent request: the foreign_id is free for another.
    const made = existing.phase !== 'rejected' && existing.phase !== 'unsent';
    if (made && !sameRequest(existing)) {
      throw new ConflictError(
        'foreign_id_conflict',
        'This foreign_id is already used by a different request',
      );
    }
    if (existing.phase === 'sent') return { record: existing, owned: false };
    // The same request again, after its claim link was made: the customer's address, not a retry, sends it.
    if (existing.claimLink && sameRequest(existing)) return { record: existing, owned: false };
    if (!leaseHeld(existing, timing)) {
      const next = takeOver(existing);
      if (await store.update(next, existing.version, existing))
        return { record: next, owned: true, previous: existing };
      triedOver = existing;
      continue;
    }
    if (timing.now() >= deadline) throw new InProgressError(Math.ceil(timing.pollMs / 1000) || 1);
    await sleep(timing.pollMs);
  }
}

/** What a record's write adds to it: the webhook events its change from `previous` makes (domain/webhooks.ts). */
type Announce<T> = (record: T, previous?: T) => T;

/** Writes the next version of a record; on a lost race returns what won instead. */
export async function save<T extends { foreignId: string; version: number }>(
  store: VersionedStore<T>,
  current: T,
  next: Omit<T, 'version'>,
  announce: Announce<T> = (record) => record,
): Promise<{ record: T; won: boolean }> {
  const record = announce({ ...next, version: current.version + 1 } as T, current);
  if (await store.update(record, current.version, current)) return { record, won: true };
  const latest = await store.get(current.foreignId);
  return { record: latest ?? record, won: false };
}

export interface MutateOptions<T> {
  attempts?: number;
  /**
   * The record as this invocation last read or wrote it, so that the first try reads nothing: its compare-and-set
   * fails if the record has moved since, and the next try reads it. Only for a change that may safely do nothing
   * when this version needs nothing: what an older version already holds, a later one holds too (records only move
   * forward).
   */
  seen?: T;
}

/**
 * Applies `change` with compare-and-set, re-reading on a lost race. `change` answers undefined when there is
 * nothing to do (for example a status that would go backwards); so does `mutate` then, and for a missing record.
 */
export async function mutate<T extends { foreignId: string; version: number }>(
  store: VersionedStore<T>,
  foreignId: string,
  change: (current: T) => Omit<T, 'version'> | undefined,
  announce: Announce<T> = (record) => record,
  { attempts = 5, seen }: MutateOptions<T> = {},
): Promise<T | undefined> {
  let current = seen ?? (await store.get(foreignId));
  for (let i = 0; i < attempts; i++) {
    if (!current) return undefined;
    const next = change(current);
    if (!next) return undefined;
    const record = announce({ ...next, version: current.version + 1 } as T, current);
    if (await store.update(record, current.version, current)) return record;
    current = await store.get(foreignId);
  }
  throw new InProgressError(1);
}

type AnyRecord = ClaimedRecord<{ foreignId: string }>;

/** The fields a kind of record adds to those every claimed record has. */
export type OwnFields<T extends AnyRecord> = Omit<T, keyof AnyRecord>;

/**
 * The shared life of one kind of record (invoices, refunds) in its store. `own` is what a new record of the kind
 * holds besides the common fields.
 */
export class ClaimedRecords<T extends AnyRecord> {
  constructor(
    private readonly store: VersionedStore<T> & OpenItems<T>,
    private readonly timing: ClaimTiming,
    private readonly what: string,
    private readonly own: OwnFields<T>,
    private readonly events?: EventKind<T>,
    /**
     * Fields a record holds only while its send may still be made (phase `sending` or `unknown`): every write in
     * another phase drops them, the one that settles the send included.
     */
    private readonly whileSending: ReadonlyArray<keyof OwnFields<T>> = [],
  ) {}

  /**
   * Every write of a record goes through here, so that the events of its change go into the same write, and what
   * it holds only while sending leaves it with the write that ends that.
   */
  private readonly announce: Announce<T> = (written, previous) => {
    const record = mayHaveBeenSent(written) ? written : this.settled(written);
    return this.events ? withEvents(this.events, record, this.timing.now(), previous) : record;
  };

  private settled(record: T): T {
    if (!this.whileSending.some((field) => field in record)) return record;
    const kept = { ...record };
    for (const field of this.whileSending) delete kept[field as keyof T];
    return kept;
  }

  /**
   * Claims the request's foreign_id with a new record made now on `on.account`, or takes over one whose send ended
   * without an answer (keeping its `createdAt` and account, `on.unpinned` for one that names none; `takeOver` may
   * carry some of its own fields on). `given`: own fields this request brings, on the new record as on a take-over.
   * `sameRequest`: whether a record holds this request; by default, whether it holds `request` as it is.
   */
  claim(
    request: T['request'],
    on: { account: AccountKind; unpinned: AccountKind },
    takeOver: (existing: T) => Partial<OwnFields<T>> = () => ({}),
    given: Partial<OwnFields<T>> = {},
    sameRequest?: (existing: T) => boolean,
  ): Promise<Claim<T>> {
    const now = this.timing.now();
    const fresh = {
      foreignId: request.foreignId,
      version: 1,
      phase: 'sending',
      request,
      claimedAt: now,
      claimId: randomUUID(),
      status: null,
      error: null,
      history: [],
      createdAt: now,
      updatedAt: now,
      account: on.account,
      ...this.own,
      ...given,
    } as AnyRecord as T;
    return claim(
      this.store,
      this.announce(fresh),
      this.timing,
      (existing) =>
        this.announce(
          {
            ...fresh,
            ...takeOver(existing),
            version: existing.version + 1,
            createdAt: existing.createdAt,
            account: existing.account ?? on.unpinned,
            // Events not yet moved out, and the seq, live on: none is lost and no id is given twice.
            outbox: carriedOutbox(existing),
          },
          existing,
        ),
      sameRequest,
    );
  }

  /** The stored record; NotFoundError when there is none. */
  read(foreignId: string): Promise<T> {
    return readRecord(this.store, foreignId, this.what);
  }

  /** Writes the next version of `current`; on a lost race answers what won instead (see `save`). */
  save(current: T, next: Omit<T, 'version'>): Promise<{ record: T; won: boolean }> {
    return save(this.store, current, next, this.announce);
  }

  /**
   * Takes an unresolved record under a fresh lease, as a claim would, so that no retry sends while the sweep acts
   * on it; on a lost race answers what won instead.
   */
  retake(record: T): Promise<{ record: T; won: boolean }> {
    const at = this.timing.now();
    return this.save(record, { ...record, phase: 'sending', claimedAt: at, updatedAt: at });
  }

  /** Applies `change` with compare-and-set (see `mutate`). */
  mutate(
    foreignId: string,
    change: (current: T) => Omit<T, 'version'> | undefined,
    options?: MutateOptions<T>,
  ): Promise<T | undefined> {
    return mutate(this.store, foreignId, change, this.announce, options);
  }

  /** `record` once the service has answered for it: sent, at the status it gave, which history records. */
  answered(
    record: T,
    news: StatusNews & { status: NonNullable<T['status']> },
    source: StatusChange['source'],
    own: Partial<OwnFields<T>>,
  ): Omit<T, 'version'> {
    const at = this.timing.now();
    return {
      ...record,
      ...own,
      phase: 'sent',
      status: news.status,
      error: news.error ?? null,
      history: [...record.history, { status: news.status, at, source }],
      updatedAt: at,
    };
  }

  /**
   * Marks how a send ended without an answer, so that a retry resumes at once instead of waiting out the lease:
   * `refusal` (the service's reason) makes the request rejected, else its outcome is unknown.
   */
  async release(record: T, refusal: string | undefined): Promise<void> {
    try {
      await this.save(record, {
        ...record,
        phase: refusal === undefined ? 'unknown' : 'rejected',
        error: refusal ?? null,
        updatedAt: this.timing.now(),
      });
    } catch {
      // The lease runs out instead; the caller still gets the service's error.
    }
  }

  /**
   * Marks a claim whose request surely never reached the service: nothing was made, so a retry sends it afresh and
   * the sweep passes it by.
   */
  async releaseUnsent(record: T): Promise<void> {
    try {
      await this.save(record, { ...record, phase: 'unsent', updatedAt: this.timing.now() });
    } catch {
      // The lease runs out instead; the caller still gets the service's error.
    }
  }

  /** Open records of every store the sweep is due to look at, by `now`, the longest due first. */
  listDue(limit: number, now: number): Promise<Array<Owned<T>>> {
    return this.store.listOpen(limit, now);
  }

  /**
   * Notes that the sweep has looked at an open record, which moves it behind the others in the sweep's order. Not
   * one claimed since the sweep listed it: the holder's write of the service's answer must not lose to this one.
   * `seen` is the record as the sweep last read or wrote it (see `MutateOptions`).
   */
  async markSwept(foreignId: string, seen?: T): Promise<void> {
    const now = this.timing.now();
    await this.mutate(
      foreignId,
      (current) => (leaseHeld(current, this.timing) ? undefined : { ...current, sweptAt: now }),
      { seen },
    );
  }
}

/** The stored record; NotFoundError naming `what` when there is none. */
export async function readRecord<T extends { version: number }>(
  store: VersionedStore<T>,
  foreignId: string,
  what: string,
): Promise<T> {
  const record = await store.get(foreignId);
  if (!record) throw new NotFoundError(what);
  return record;
}
