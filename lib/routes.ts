// Every deployment fact about a function, in one place: the HTTP routes and the scheduled jobs. Plain data, no CDK
// imports: the stack (grants, throttles), the local gateway, the functions (access scope) and the tests read it.
import type { SecretName } from '../secrets/fields';
import type { IndexName } from '../store/schema';

export type HttpMethod = 'GET' | 'POST';

/**
 * Who may call a route: a bearer token of a scope, the service itself (it signs; the handler verifies), the
 * customer's browser on the shop's page, from any origin, with one invoice's client secret (the handler checks it),
 * or anyone (`public`: what it serves is no secret).
 */
export type Access = 'storefront' | 'admin' | 'service' | 'customer' | 'public';

export type TableAction = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';

/** Exactly the DynamoDB actions a function needs: on the table, and Query on each secondary index it reads. */
export interface DataAccess {
  table: readonly TableAction[];
  queriedIndexes?: readonly IndexName[];
}

/** `busy`: called per customer (checkout, then polling) or by the service; `admin`: a back office, now and then. */
export type ThrottleClass = 'busy' | 'admin';

/** A route's throttle class follows from who may call it; the document, for anyone, is read now and then. */
export const THROTTLE_BY_ACCESS = {
  storefront: 'busy',
  customer: 'busy',
  service: 'busy',
  admin: 'admin',
  public: 'admin',
} as const satisfies Record<Access, ThrottleClass>;

/**
 * `shared`: the account's unreserved pool. `{ reserved: n }`: n set aside for this function alone, and never more
 * than n at once. Lambda keeps 100 of an account's concurrency unreserved, so the account needs 100 plus the sum.
 */
export type Concurrency = 'shared' | { reserved: number };

interface FunctionFacts {
  /** The handler module is `functions/<name>.ts`, exporting `handler`. */
  name: string;
  data: DataAccess;
  /** The secrets it may read: the tokens it checks callers against, the keys it signs or verifies with. */
  secrets: readonly SecretName[];
  concurrency: Concurrency;
}

export interface Route extends FunctionFacts {
  method: HttpMethod;
  /** API Gateway path syntax: `{name}` is a path parameter. */
  path: string;
  /** Who may call it; its throttle class follows (THROTTLE_BY_ACCESS). */
  access: Access;
}

export type ScheduledJob = FunctionFacts;

// One constant per route, so that a function's bundle holds its own entry and not the whole table.
export const checkoutRoute = {
  method: 'POST',
  path: '/checkout',
  name: 'checkout',
  access: 'storefront',
  data: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const getInvoiceRoute = {
  method: 'GET',
  path: '/invoices/{foreign_id}',
  name: 'get-invoice',
  access: 'storefront',
  data: { table: ['GetItem'] },
  secrets: ['tokens'],
  concurrency: 'shared',
} as const satisfies Route;

export const publicInvoiceRoute = {
  method: 'GET',
  path: '/public/invoices/{foreign_id}',
  name: 'public-invoice',
  access: 'customer',
  data: { table: ['GetItem'] },
  secrets: [],
  concurrency: 'shared',
} as const satisfies Route;

export const cancelInvoiceRoute = {
  method: 'POST',
  path: '/invoices/{foreign_id}/cancel',
  name: 'cancel-invoice',
  access: 'admin',
  data: { table: ['GetItem', 'UpdateItem'] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const ratesRoute = {
  method: 'GET',
  path: '/rates',
  name: 'rates',
  access: 'storefront',
  data: { table: [] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const pairsRoute = {
  method: 'GET',
  path: '/pairs',
  name: 'pairs',
  access: 'storefront',
  data: { table: [] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const getBalancesRoute = {
  method: 'GET',
  path: '/balances',
  name: 'get-balances',
  access: 'admin',
  data: { table: ['Query', 'PutItem'] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const balanceHistoryRoute = {
  method: 'GET',
  path: '/balances/history',
  name: 'balance-history',
  access: 'admin',
  data: { table: ['Query'] },
  secrets: ['tokens'],
  concurrency: 'shared',
} as const satisfies Route;

export const refundInvoiceRoute = {
  method: 'POST',
  path: '/invoices/{foreign_id}/refunds',
  name: 'refund-invoice',
  // A refund moves the store's money: the back office's token, never the one a storefront holds.
  access: 'admin',
  // DeleteItem: a refund refused on its order leaves no record.
  data: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const createRefundRoute = {
  method: 'POST',
  path: '/refunds',
  name: 'create-refund',
  access: 'admin',
  data: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const listInvoicesRoute = {
  method: 'GET',
  path: '/invoices',
  name: 'list-invoices',
  access: 'admin',
  data: { table: ['BatchGetItem'], queriedIndexes: ['created'] },
  secrets: ['tokens'],
  concurrency: 'shared',
} as const satisfies Route;

export const listRefundsRoute = {
  method: 'GET',
  path: '/refunds',
  name: 'list-refunds',
  access: 'admin',
  data: { table: ['BatchGetItem'], queriedIndexes: ['created'] },
  secrets: ['tokens'],
  concurrency: 'shared',
} as const satisfies Route;

export const getRefundRoute = {
  method: 'GET',
  path: '/refunds/{foreign_id}',
  name: 'get-refund',
  access: 'admin',
  data: { table: ['GetItem', 'UpdateItem'] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const lookupTransactionRoute = {
  method: 'GET',
  path: '/transactions',
  name: 'lookup-transaction',
  access: 'admin',
  data: { table: [] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const callbacksRoute = {
  method: 'POST',
  path: '/callbacks',
  name: 'callbacks',
  access: 'service',
  data: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  secrets: ['processingKeys'],
  // Its own, so that a flood on the public routes cannot starve the payment callbacks; 20 carry its 100/s
  // throttle at about 200 ms each.
  concurrency: { reserved: 20 },
} as const satisfies Route;

export const openapiRoute = {
  method: 'GET',
  path: '/openapi.json',
  name: 'openapi',
  access: 'public',
  data: { table: [] },
  secrets: [],
  concurrency: 'shared',
} as const satisfies Route;

export const healthRoute = {
  method: 'GET',
  path: '/health',
  name: 'health',
  access: 'admin',
  data: { table: [] },
  secrets: ['tokens', 'processingKeys'],
  concurrency: 'shared',
} as const satisfies Route;

export const listWebhookDeliveriesRoute = {
  method: 'GET',
  path: '/webhooks/deliveries',
  name: 'list-webhook-deliveries',
  access: 'admin',
  data: { table: ['BatchGetItem'], queriedIndexes: ['created'] },
  secrets: ['tokens'],
  concurrency: 'shared',
} as const satisfies Route;

export const resendWebhookRoute = {
  method: 'POST',
  path: '/webhooks/deliveries/{event_id}/resend',
  name: 'resend-webhook',
  access: 'admin',
  data: { table: ['GetItem', 'PutItem'] },
  secrets: ['tokens'],
  concurrency: 'shared',
} as const satisfies Route;

export const resendFailedWebhooksRoute = {
  method: 'POST',
  path: '/webhooks/deliveries/resend-failed',
  name: 'resend-failed-webhooks',
  access: 'admin',
  data: { table: ['GetItem', 'PutItem'], queriedIndexes: ['deliveries-due'] },
  secrets: ['tokens'],
  concurrency: 'shared',
} as const satisfies Route;

/** The route table the deployed HTTP API and the local gateway both serve. */
export const routes = [
  checkoutRoute,
  getInvoiceRoute,
  publicInvoiceRoute,
  listInvoicesRoute,
  cancelInvoiceRoute,
  refundInvoiceRoute,
  ratesRoute,
  pairsRoute,
  getBalancesRoute,
  balanceHistoryRoute,
  createRefundRoute,
  listRefundsRoute,
  getRefundRoute,
  lookupTransactionRoute,
  callbacksRoute,
  openapiRoute,
  healthRoute,
  listWebhookDeliveriesRoute,
  resendWebhookRoute,
  resendFailedWebhooksRoute,
] as const;

/**
 * An API function's timeout (Lambda's, in the stack and in the local gateway): under the HTTP API's 30 s
 * integration limit. Every call to the service budgets itself from what is left of it (runtime/deadline.ts).
 */
export const API_FUNCTION_TIMEOUT_SECONDS = 25;

/** A scheduled job's timeout: jobs walk many records, and the sweep stops taking new ones as its time runs low. */
export const JOB_FUNCTION_TIMEOUT_SECONDS = 120;

/** Functions run on a schedule, with no route. */
export const jobs = [
  {
    name: 'snapshot-balances',
    data: { table: ['PutItem'] },
    secrets: ['processingKeys'],
    concurrency: 'shared',
  },
  {
    name: 'reconcile',
    // DeleteItem: an order's refund that never wrote what it sends is given up.
    data: { table: ['Query', 'GetItem', 'UpdateItem', 'DeleteItem'], queriedIndexes: ['open-items'] },
    secrets: ['processingKeys'],
    // One run at a time: a run due while the last one still works waits (Lambda retries it), never overlaps.
    concurrency: { reserved: 1 },
  },
  {
    // Moves webhook events out of the records' outboxes and delivers what is due (domain/webhooks.ts).
    name: 'webhook-dispatcher',
    data: { table: ['GetItem', 'PutItem', 'UpdateItem'], queriedIndexes: ['deliveries-due'] },
    secrets: ['webhookSecret'],
    // Runs may overlap (leases keep them apart); a few at most, so a slow endpoint cannot take the account's pool.
    concurrency: { reserved: 2 },
  },
] as const satisfies readonly ScheduledJob[];

// Pure: a function's bundle drops it with the table.
export const scheduledJobs: readonly ScheduledJobName[] = /* @__PURE__ */ jobs.map((job) => job.name);

export type RouteFunctionName = (typeof routes)[number]['name'];
export type ScheduledJobName = (typeof jobs)[number]['name'];
export type FunctionName = RouteFunctionName | ScheduledJobName;
