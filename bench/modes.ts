export type Mode = 'full' | 'smoke';

export interface Sizes {
  /** Checkouts before anything is measured: secret fetched, connections open, code warm. */
  warmup: number;
  /** Sequential warm invocations counted for I/O, per handler. */
  ioInvocations: number;
  checkoutSequential: number;
  checkoutConcurrent: number;
  pollSequential: number;
  pollConcurrent: number;
  concurrency: number;
  gatewayRequests: number;
  gatewayConnections: number;
  /** Fresh processes per bundle for the init median. */
  initRuns: number;
}

/** Full: a few thousand invoices, under 5 minutes on 2 cores. Smoke: proves every figure still comes out. */
export const SIZES: Record<Mode, Sizes> = {
  full: {
    warmup: 200,
    ioInvocations: 1000,
    checkoutSequential: 2000,
    checkoutConcurrent: 3000,
    pollSequential: 5000,
    pollConcurrent: 6000,
    concurrency: 16,
    gatewayRequests: 10_000,
    gatewayConnections: 16,
    initRuns: 21,
  },
  smoke: {
    warmup: 4,
    ioInvocations: 10,
    checkoutSequential: 6,
    checkoutConcurrent: 32,
    pollSequential: 6,
    pollConcurrent: 32,
    concurrency: 16,
    gatewayRequests: 50,
    gatewayConnections: 4,
    initRuns: 1,
  },
};
