import type { SweepSizes } from './sweep';

export type Mode = 'full' | 'smoke';

export interface Sizes {
  /** Calls of every timed kind before anything is measured: secret fetched, connections open, code run. */
  warmup: number;
  /**
   * Calls at concurrency for each side of a targeted ratio, the bare checkout and the peer before they are timed,
   * by when V8 has compiled most of their code: it goes on compiling a handler's code through its first few
   * thousand calls, and a figure taken meanwhile times the compiler too. More would not fit the run's five minutes
   * (README, Performance).
   */
  settle: number;
  /** Sequential warm invocations counted for I/O and CPU, per handler. */
  ioInvocations: number;
  /** Sequential warm calls of GET /checkout/options whose upstream calls are counted. */
  eligibilityInvocations: number;
  /** Sequential invocations metered for capacity units, per handler. */
  meteredInvocations: number;
  checkoutSequential: number;
  checkoutConcurrent: number;
  /** Sequential checkouts a side split at their I/O (bench/segments.ts). */
  segmentCheckouts: number;
  /** Sequential polls a side split at their read. */
  segmentPolls: number;
  pollSequential: number;
  pollConcurrent: number;
  concurrency: number;
  gatewayRequests: number;
  gatewayConnections: number;
  /** Orders paid, with their callbacks metered. */
  paidOrders: number;
  sweep: SweepSizes;
  /** Fresh processes per bundle: with a first invocation, and for module init alone. */
  coldRuns: { endToEnd: number; initOnly: number };
}

/**
 * Full: a few thousand invoices (README, Performance, says how long that takes). Smoke: proves every figure still
 * comes out. Each size once, its two values side by side.
 */
const BY_SIZE: { [Name in keyof Sizes]: Record<Mode, Sizes[Name]> } = {
  warmup: { full: 200, smoke: 4 },
  settle: { full: 1000, smoke: 4 },
  ioInvocations: { full: 500, smoke: 10 },
  eligibilityInvocations: { full: 500, smoke: 10 },
  meteredInvocations: { full: 100, smoke: 3 },
  checkoutSequential: { full: 1500, smoke: 6 },
  checkoutConcurrent: { full: 2000, smoke: 32 },
  segmentCheckouts: { full: 500, smoke: 4 },
  segmentPolls: { full: 3000, smoke: 6 },
  pollSequential: { full: 3000, smoke: 6 },
  pollConcurrent: { full: 3600, smoke: 32 },
  concurrency: { full: 16, smoke: 16 },
  gatewayRequests: { full: 5_000, smoke: 50 },
  gatewayConnections: { full: 16, smoke: 4 },
  paidOrders: { full: 20, smoke: 2 },
  sweep: {
    full: { openSteps: [1000, 10_000], due: 100, runs: 3 },
    smoke: { openSteps: [100, 300], due: 10, runs: 1 },
  },
  coldRuns: { full: { endToEnd: 13, initOnly: 5 }, smoke: { endToEnd: 1, initOnly: 1 } },
};

/** One mode's column of a table that holds each size's value for every mode. */
function column<Row>(table: { [Name in keyof Row]: Record<Mode, Row[Name]> }, mode: Mode): Row {
  return Object.fromEntries(
    Object.entries<Record<Mode, unknown>>(table).map(([name, values]) => [name, values[mode]]),
  ) as Row;
}

export const SIZES: Record<Mode, Sizes> = { full: column(BY_SIZE, 'full'), smoke: column(BY_SIZE, 'smoke') };
