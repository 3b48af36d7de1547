import { DEFAULT_RATES, rateSeconds } from '../lib/settings';
import { DEFAULT_PORT } from '../sandbox/server';

/** What `npm start` (local/start.ts) takes when a variable is unset; its jobs run at the stack's default rates. */
export const LOCAL_DEFAULTS = {
  PORT: 3000,
  SANDBOX_PORT: DEFAULT_PORT,
  SNAPSHOT_INTERVAL_SECONDS: rateSeconds(DEFAULT_RATES.snapshotRate),
  RECONCILE_INTERVAL_SECONDS: rateSeconds(DEFAULT_RATES.reconcileRate),
} as const;

/** A number `npm start` reads from its environment, or its default. */
export function localNumber(name: keyof typeof LOCAL_DEFAULTS): number {
  return Number(process.env[name] ?? LOCAL_DEFAULTS[name]);
}
