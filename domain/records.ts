import { ConflictError, InProgressError } from './errors';
import type { Phase } from './model';
import type { VersionedStore } from './ports';

/** The part of an invoice or refund record that the claim protocol reads. */
export interface Claimable {
  foreignId: string;
  version: number;
  phase: Phase;
  requestHash: string;
  claimedAt: number;
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

/**
 * Claims a foreign_id with conditional writes, so that exactly one caller talks to the service for it.
 * Duplicates of a settled request get the stored record; a different request for the same id is a conflict.
 */
export async function claim<T extends Claimable>(
  store: VersionedStore<T>,
  fresh: T,
  timing: ClaimTiming,
  takeOver: (existing: T) => T,
): Promise<Claim<T>> {
  if (await store.create(fresh)) return { record: fresh, owned: true };
  const deadline = timing.now() + timing.waitMs;
  for (;;) {
    const existing = await store.get(fresh.foreignId);
    if (!existing) {
      if (await store.create(fresh)) return { record: fresh, owned: true };
      continue;
    }
    const sameRequest = existing.requestHash === fresh.requestHash;
    if (!sameRequest && existing.phase !== 'rejected') {
      throw new ConflictError(
        'foreign_id_conflict',
        'This foreign_id is already used by a different request',
      );
    }
    if (existing.phase === 'sent') return { record: existing, owned: false };
    const leaseHeld = existing.phase === 'sending' && timing.now() - existing.claimedAt < timing.leaseMs;
    if (!leaseHeld) {
      const next = takeOver(existing);
      if (await store.update(next, existing.version))
        return { record: next, owned: true, previous: existing };
      continue;
    }
    if (timing.now() >= deadline) throw new InProgressError(Math.ceil(timing.pollMs / 1000) || 1);
    await sleep(timing.pollMs);
  }
}

/** Writes the next version of a record; on a lost race returns what won instead. */
export async function save<T extends { foreignId: string; version: number }>(
  store: VersionedStore<T>,
  current: T,
  next: Omit<T, 'version'>,
): Promise<{ record: T; won: boolean }> {
  const record = { ...next, version: current.version + 1 } as T;
  if (await store.update(record, current.version)) return { record, won: true };
  const latest = await store.get(current.foreignId);
  return { record: latest ?? record, won: false };
}

/**
 * Applies `change` with compare-and-set, re-reading on a lost race. `change` answers undefined when there is
 * nothing to do (for example a status that would go backwards); so does `mutate` then, and for a missing record.
 */
export async function mutate<T extends { foreignId: string; version: number }>(
  store: VersionedStore<T>,
  foreignId: string,
  change: (current: T) => Omit<T, 'version'> | undefined,
  attempts = 5,
): Promise<T | undefined> {
  for (let i = 0; i < attempts; i++) {
    const current = await store.get(foreignId);
    if (!current) return undefined;
    const next = change(current);
    if (!next) return undefined;
    const { record, won } = await save(store, current, next);
    if (won) return record;
  }
  throw new InProgressError(1);
}

/** Notes that the sweep has looked at an open record, which moves it behind the others in the sweep's order. */
export function markSwept<T extends { foreignId: string; version: number; sweptAt?: number }>(
  store: VersionedStore<T>,
  foreignId: string,
  now: number,
): Promise<T | undefined> {
  return mutate(store, foreignId, (current) => ({ ...current, sweptAt: now }));
}
