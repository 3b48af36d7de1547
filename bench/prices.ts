// The cost of a million orders is computed from these: AWS list prices (us-east-1, on-demand, arm64, as on the
// pricing pages in November 2026) and what an order is. Change them here and rerun `npm run bench`.

export const PRICES = {
  lambda: {
    /** arm64, first 7.5 billion GB-seconds a month. Init is billed too (since August 2025). */
    perGbSecond: 0.0000133334,
    perMillionRequests: 0.2,
  },
  /** HTTP API, first 300 million requests a month; a request counts per 512 KB, ours are far smaller. */
  apiGateway: { perMillionRequests: 1.0 },
  /** On-demand capacity. */
  dynamodb: { perMillionWriteUnits: 0.625, perMillionReadUnits: 0.125 },
  /** Per API call; the $0.40 a month per secret does not grow with orders. */
  secretsManager: { perTenThousandCalls: 0.05 },
};

export const ORDER = {
  orders: 1_000_000,
  /** Over a month of 30 days: the scheduled jobs' runs are shared out over the orders of that month. */
  ordersPerMonth: 1_000_000,
  pollsPerOrder: 20,
  callbacksPerOrder: 3,
  /** When the customer pays after checkout: the sweep looks at an order until its callbacks say it is final. */
  minutesToPay: 5,
  /** Memory of every function (lib/plugin-function.ts). */
  memoryMb: 512,
  /** Share of invocations that start a new execution environment (init billed, secrets fetched). */
  coldStartShare: 0.01,
  /** Warm environments across the functions, each re-reading its secrets every SECRET_TTL_SECONDS (300). */
  warmEnvironments: 20,
  secretTtlSeconds: 300,
  /**
   * What loopback does not show: the bench measures over loopback, so each call to DynamoDB and to the service
   * is billed this much longer on AWS (DynamoDB in-region; the service's and the shop's webhook endpoint's answer
   * times are guesses).
   */
  remoteLatencyMs: { dynamodb: 4, service: 150, endpoint: 100 },
};
