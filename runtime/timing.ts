import type { ClaimTiming } from '../domain/records';
import { numberEnv } from './env';

export const claimTiming: ClaimTiming = {
  now: Date.now,
  leaseMs: numberEnv('CLAIM_LEASE_MS', 45_000),
  waitMs: numberEnv('CLAIM_WAIT_MS', 5_000),
  pollMs: 100,
};
