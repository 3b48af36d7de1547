import type { SweepTiming } from '../domain/reconcile';
import type { ClaimTiming } from '../domain/records';
import { remainingMs } from './deadline';
import { numberEnv } from './env';

const claimWaitMs = numberEnv('CLAIM_WAIT_MS', 5_000);

export const claimTiming: ClaimTiming = {
  now: Date.now,
  leaseMs: numberEnv('CLAIM_LEASE_MS', 45_000),
  /** A duplicate waits for the claim holder no longer than its own invocation may wait for the service. */
  get waitMs() {
    return Math.min(claimWaitMs, remainingMs() ?? Infinity);
  },
  pollMs: 100,
};

export const sweepTiming: SweepTiming = {
  staleAfterMs: numberEnv('RECONCILE_STALE_SECONDS', 300) * 1000,
  expiryGraceMs: numberEnv('RECONCILE_EXPIRY_GRACE_SECONDS', 60) * 1000,
};

/**
 * How long after its first event a record's outbox is listed as due: the run its write woke has it meanwhile
 * (domain/webhooks.ts, `outboxListedAt`). The record stores and the webhook dispatcher must agree on it.
 */
export const outboxGraceMs = numberEnv('WEBHOOK_OUTBOX_GRACE_MS', 60_000);
