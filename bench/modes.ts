import type { SweepSizes } from './sweep';

export type Mode = 'full' | 'smoke';

export interface Sizes {
  /** Checkouts before anything is measured: secret fetched, connections open, code warm. */
  warmup: number;
  /** Sequential warm invocations counted for I/O and CPU, per handler. */
  ioInvocations: number;
  /** Sequential invocations metered for capacity units, per handler. */
  meteredInvocations: number;
  checkoutSequential: number;
  checkoutConcurrent: number;
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
 * Full: a few thousand invoices, about 2 minutes on 2 quiet cores (4 to 5 when other work shares them). Smoke:
 * proves every figure still comes out.
 */
export const SIZES: Record<Mode, Sizes> = {
  full: {
    warmup: 200,
    ioInvocations: 1000,
    meteredInvocations: 100,
    checkoutSequential: 2000,
    checkoutConcurrent: 3000,
    pollSequential: 4000,
    pollConcurrent: 4800,
    concurrency: 16,
    gatewayRequests: 10_000,
    gatewayConnections: 16,
    paidOrders: 20,
    sweep: { openSteps: [1000, 10_000], due: 100, runs: 3 },
    coldRuns: { endToEnd: 13, initOnly: 7 },
  },
  smoke: {
    warmup: 4,
    ioInvocations: 10,
    meteredInvocations: 3,
    checkoutSequential: 6,
    checkoutConcurrent: 32,
    pollSequential: 6,
    pollConcurrent: 32,
    concurrency: 16,
    gatewayRequests: 50,
    gatewayConnections: 4,
    paidOrders: 2,
    sweep: { openSteps: [100, 300], due: 10, runs: 1 },
    coldRuns: { endToEnd: 1, initOnly: 1 },
  },
};
