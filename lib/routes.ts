// Every deployment fact about a function, in one place: the HTTP routes and the scheduled jobs. Plain data, no CDK
// imports: the stack (grants, throttles), the local gateway, the functions (access scope) and the tests read it.
import type { SecretName } from '../secrets/fields';
import type { IndexName } from '../store/schema';

export type HttpMethod = 'GET' | 'POST' | 'PATCH';

/**
 * Who may call a route:
 * - `storefront`, `admin`: a bearer token of that scope.
 * - `platform`: the platform token alone; it manages stores, and opens every storefront and admin route for the
 *   store in `Store-Id`.
 * - `service`: the payment service itself, which signs; the handler verifies.
 * - `customer`: the customer's browser on the shop's page, from any origin, with one invoice's client secret.
 * - `claimant`: a customer on our claim page with a refund's claim token.
 * - `public`: anyone, as what it serves is no secret.
 */
export type Access = 'storefront' | 'admin' | 'platform' | 'service' | 'customer' | 'claimant' | 'public';

export type TableAction = 'GetItem' | 'BatchGetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'Query';

/** Exactly the DynamoDB actions a function needs: on the table, and Query on each secondary index it reads. */
export interface DataAccess {
  table: readonly TableAction[];
  queriedIndexes?: readonly IndexName[];
}

/** `busy`: called per customer (checkout, then polling) or by the service; `admin`: a back office, now and then. */
export type ThrottleClass = 'busy' | 'admin';

/**
 * A route's throttle class follows from who may call it; the document, for anyone, is read now and then, and so is
 * a claim link, which a low throttle also keeps any guessing of its tokens slow.
 */
export const THROTTLE_BY_ACCESS = {
  storefront: 'busy',
  customer: 'busy',
  service: 'busy',
  claimant: 'admin',
  admin: 'admin',
  platform: 'admin',
  public: 'admin',
} as const satisfies Record<Access, ThrottleClass>;

/**
 * Whether a route's requests count against its store's limit (domain/request-limits.ts): a store's tokens and its
 * customers do; the service's callbacks, the platform's store admin, claim links and the document do not.
 */
export const LIMITED_BY_ACCESS = {
  storefront: true,
  admin: true,
  customer: true,
  service: false,
  claimant: false,
  platform: false,
  public: false,
} as const satisfies Record<Access, boolean>;

/**
 * What a function may do with the stores' own secrets (`<prefix>/stores/<id>`, issue 33), by name prefix: `read`
 * a store's keys and webhook secrets, `create` them (the store's first value), `write` new ones over them.
 */
export type StoreSecretAccess = 'none' | 'read' | 'create' | 'write';

/**
 * `shared`: the account's unreserved pool; `{ reserved: n }`: n set aside for this function alone, and never more
 * than n at once. Lambda keeps 100 of an account's concurrency unreserved, so the account needs 100 plus the sum.
 */
export type Concurrency = 'shared' | { reserved: number };

interface FunctionFacts {
  /** The handler module is `functions/<name>.ts`, exporting `handler`. */
  name: string;
  data: DataAccess;
  /** The secrets it may read: the tokens it checks callers against, the keys it signs or verifies with. */
  secrets: readonly SecretName[];
  storeSecrets: StoreSecretAccess;
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

type MethodOf<Key> = Key extends `${infer Method extends HttpMethod} ${string}` ? Method : never;
type PathOf<Key> = Key extends `${HttpMethod} ${infer Path}` ? Path : never;
/** A misspelt key (`queriedIndex`) is an error, as `satisfies` makes it, never a grant left out in silence. */
type NoOtherKeys<Given, Known> = Record<Exclude<keyof Given, keyof Known>, never>;

/**
 * One route's row: its key as API Gateway writes it (`'GET /invoices/{foreign_id}'`), its function, who may call
 * it, what it may touch, and its concurrency (the shared pool unless reserved). It is marked free of side effects
 * so that esbuild drops the other rows from a function's bundle.
 */
/* @__NO_SIDE_EFFECTS__ */ function route<
  const Key extends `${HttpMethod} /${string}`,
  const Name extends string,
  const Scope extends Access,
  const Data extends DataAccess,
  const Secrets extends readonly SecretName[],
  const Reserved extends Concurrency = 'shared',
  const StoreSecrets extends StoreSecretAccess = 'none',
>(
  key: Key,
  name: Name,
  access: Scope,
  grants: {
    data: Data & NoOtherKeys<Data, DataAccess>;
    secrets: Secrets;
    storeSecrets?: StoreSecrets;
    concurrency?: Reserved;
  },
) {
  const [method, path] = key.split(' ') as [MethodOf<Key>, PathOf<Key>];
  const { data, secrets, concurrency = 'shared', storeSecrets = 'none' } = grants;
  // The casts keep the row's own types: `data` without its key check, the default as its literal.
  const row = {
    method,
    path,
    name,
    access,
    data: data as Data,
    secrets,
    storeSecrets: storeSecrets as StoreSecrets,
    concurrency: concurrency as Reserved,
  };
  return row satisfies Route;
}

// One constant per route, so that a function's bundle holds its own entry and not the whole table. By resource:
// invoices, refunds, the service's reads, callbacks, webhooks, then the document and the health check.
export const checkoutRoute = route('POST /checkout', 'checkout', 'storefront', {
  data: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

// What a customer may pay an amount in, from the service's pairs: the storefront asks before it offers crypto.
export const checkoutOptionsRoute = route('GET /checkout/options', 'checkout-options', 'storefront', {
  data: { table: ['GetItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

export const getInvoiceRoute = route('GET /invoices/{foreign_id}', 'get-invoice', 'storefront', {
  data: { table: ['GetItem'] },
  secrets: ['tokens', 'platformToken'],
});

export const publicInvoiceRoute = route('GET /public/invoices/{foreign_id}', 'public-invoice', 'customer', {
  data: { table: ['GetItem'] },
  secrets: [],
});

export const cancelInvoiceRoute = route('POST /invoices/{foreign_id}/cancel', 'cancel-invoice', 'admin', {
  data: { table: ['GetItem', 'UpdateItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

// A refund moves the store's money: the back office's token, never the one a storefront holds.
export const refundInvoiceRoute = route('POST /invoices/{foreign_id}/refunds', 'refund-invoice', 'admin', {
  // DeleteItem: a refund refused on its order leaves no record.
  data: { table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

// A refund's claim link: the claim page holds its token (the handler checks it against the stored hash).
export const getRefundClaimRoute = route(
  'GET /public/refund-claims/{foreign_id}',
  'get-refund-claim',
  'claimant',
  {
    data: { table: ['GetItem'] },
    secrets: [],
  },
);

export const claimRefundRoute = route('POST /public/refund-claims/{foreign_id}', 'claim-refund', 'claimant', {
  data: { table: ['GetItem', 'UpdateItem'] },
  secrets: ['processingKeys'],
  storeSecrets: 'read',
});

export const cancelRefundClaimRoute = route(
  'POST /refunds/{foreign_id}/cancel-claim',
  'cancel-refund-claim',
  'admin',
  { data: { table: ['GetItem', 'UpdateItem'] }, secrets: ['tokens', 'platformToken'] },
);

export const listInvoicesRoute = route('GET /invoices', 'list-invoices', 'admin', {
  data: { table: ['GetItem', 'BatchGetItem'], queriedIndexes: ['created'] },
  secrets: ['tokens', 'platformToken'],
});

export const createRefundRoute = route('POST /refunds', 'create-refund', 'admin', {
  data: { table: ['GetItem', 'PutItem', 'UpdateItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

export const getRefundRoute = route('GET /refunds/{foreign_id}', 'get-refund', 'admin', {
  data: { table: ['GetItem', 'UpdateItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

export const listRefundsRoute = route('GET /refunds', 'list-refunds', 'admin', {
  data: { table: ['GetItem', 'BatchGetItem'], queriedIndexes: ['created'] },
  secrets: ['tokens', 'platformToken'],
});

// Accounting exports: CSV pages of the same lists, a `Link` header to the next.
export const exportInvoicesRoute = route('GET /exports/invoices.csv', 'export-invoices', 'admin', {
  data: { table: ['GetItem', 'BatchGetItem'], queriedIndexes: ['created'] },
  secrets: ['tokens', 'platformToken'],
});

export const exportRefundsRoute = route('GET /exports/refunds.csv', 'export-refunds', 'admin', {
  data: { table: ['GetItem', 'BatchGetItem'], queriedIndexes: ['created'] },
  secrets: ['tokens', 'platformToken'],
});

export const ratesRoute = route('GET /rates', 'rates', 'storefront', {
  data: { table: ['GetItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

export const pairsRoute = route('GET /pairs', 'pairs', 'storefront', {
  data: { table: ['GetItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

export const getBalancesRoute = route('GET /balances', 'get-balances', 'admin', {
  data: { table: ['GetItem', 'Query', 'PutItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

export const balanceHistoryRoute = route('GET /balances/history', 'balance-history', 'admin', {
  data: { table: ['GetItem', 'Query'] },
  secrets: ['tokens', 'platformToken'],
});

export const lookupTransactionRoute = route('GET /transactions', 'lookup-transaction', 'admin', {
  data: { table: ['GetItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

export const callbacksRoute = route('POST /callbacks', 'callbacks', 'service', {
  data: { table: ['GetItem', 'UpdateItem'] },
  secrets: ['processingKeys'],
  // A store on its own account has its callbacks verified with its own keys.
  storeSecrets: 'read',
  // Its own, so that a flood on the public routes cannot starve the payment callbacks (docs/operations.md).
  concurrency: { reserved: 20 },
});

// A store with its own processing account has its own callback URL, verified with the keys of the store's account,
// which its own secret holds. Applying a callback calls no service, so the deployment's keys are not granted.
export const storeCallbacksRoute = route('POST /callbacks/{store_id}', 'store-callbacks', 'service', {
  data: { table: ['GetItem', 'UpdateItem'] },
  secrets: [],
  storeSecrets: 'read',
});

export const listWebhookDeliveriesRoute = route(
  'GET /webhooks/deliveries',
  'list-webhook-deliveries',
  'admin',
  {
    data: { table: ['GetItem', 'BatchGetItem'], queriedIndexes: ['created'] },
    secrets: ['tokens', 'platformToken'],
  },
);

export const resendWebhookRoute = route(
  'POST /webhooks/deliveries/{event_id}/resend',
  'resend-webhook',
  'admin',
  { data: { table: ['GetItem', 'PutItem'] }, secrets: ['tokens', 'platformToken'] },
);

export const resendFailedWebhooksRoute = route(
  'POST /webhooks/deliveries/resend-failed',
  'resend-failed-webhooks',
  'admin',
  {
    data: { table: ['GetItem', 'PutItem'], queriedIndexes: ['deliveries-due'] },
    secrets: ['tokens', 'platformToken'],
  },
);

export const openapiRoute = route('GET /openapi.json', 'openapi', 'public', {
  data: { table: [] },
  secrets: [],
});

// Stores (issue 33): the platform token manages them; any token learns what it holds from /tokens/current.
const STORE_WRITES = { table: ['GetItem', 'PutItem'] } as const;
const PLATFORM_SECRETS = ['tokens', 'platformToken'] as const;

// The only function that may create a store's secret.
export const createStoreRoute = route('POST /stores', 'create-store', 'platform', {
  data: STORE_WRITES,
  secrets: PLATFORM_SECRETS,
  storeSecrets: 'create',
});

export const listStoresRoute = route('GET /stores', 'list-stores', 'platform', {
  data: { table: ['GetItem'], queriedIndexes: ['created'] },
  secrets: PLATFORM_SECRETS,
});

export const getStoreRoute = route('GET /stores/{store_id}', 'get-store', 'platform', {
  data: { table: ['GetItem'] },
  secrets: PLATFORM_SECRETS,
});

// The functions that may write a store's secret after its creation: new processing keys, and a new webhook secret.
export const updateStoreRoute = route('PATCH /stores/{store_id}', 'update-store', 'platform', {
  data: STORE_WRITES,
  secrets: PLATFORM_SECRETS,
  storeSecrets: 'write',
});

export const rotateStoreTokensRoute = route(
  'POST /stores/{store_id}/tokens/rotate',
  'rotate-store-tokens',
  'platform',
  { data: STORE_WRITES, secrets: PLATFORM_SECRETS },
);

export const rotateStoreWebhookSecretRoute = route(
  'POST /stores/{store_id}/webhook-secret/rotate',
  'rotate-store-webhook-secret',
  'platform',
  { data: STORE_WRITES, secrets: PLATFORM_SECRETS, storeSecrets: 'write' },
);

export const disableStoreRoute = route('POST /stores/{store_id}/disable', 'disable-store', 'platform', {
  data: STORE_WRITES,
  secrets: PLATFORM_SECRETS,
});

export const enableStoreRoute = route('POST /stores/{store_id}/enable', 'enable-store', 'platform', {
  data: STORE_WRITES,
  secrets: PLATFORM_SECRETS,
});

// Any token: the storefront's access is the lowest, and the admin's and the platform's open it too.
export const currentTokenRoute = route('GET /tokens/current', 'current-token', 'storefront', {
  data: { table: ['GetItem'] },
  secrets: PLATFORM_SECRETS,
});

export const healthRoute = route('GET /health', 'health', 'admin', {
  data: { table: ['GetItem'] },
  secrets: ['tokens', 'platformToken', 'processingKeys'],
  storeSecrets: 'read',
});

/** The route table the deployed HTTP API and the local gateway both serve. */
export const routes = [
  checkoutRoute,
  checkoutOptionsRoute,
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
  getRefundClaimRoute,
  claimRefundRoute,
  cancelRefundClaimRoute,
  exportInvoicesRoute,
  exportRefundsRoute,
  lookupTransactionRoute,
  callbacksRoute,
  storeCallbacksRoute,
  openapiRoute,
  healthRoute,
  listWebhookDeliveriesRoute,
  resendWebhookRoute,
  resendFailedWebhooksRoute,
  createStoreRoute,
  listStoresRoute,
  getStoreRoute,
  updateStoreRoute,
  rotateStoreTokensRoute,
  rotateStoreWebhookSecretRoute,
  disableStoreRoute,
  enableStoreRoute,
  currentTokenRoute,
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
    // The registry's stores (GetItem, the `created` index), for the stores with their own account.
    data: { table: ['GetItem', 'PutItem'], queriedIndexes: ['created'] },
    secrets: ['processingKeys'],
    storeSecrets: 'read',
    concurrency: 'shared',
  },
  {
    name: 'reconcile',
    // DeleteItem: an order's refund that never wrote what it sends is given up.
    data: { table: ['Query', 'GetItem', 'UpdateItem', 'DeleteItem'], queriedIndexes: ['open-items'] },
    secrets: ['processingKeys'],
    storeSecrets: 'read',
    // One run at a time: a run due while the last one still works waits (Lambda retries it), never overlaps.
    concurrency: { reserved: 1 },
  },
  {
    // Moves webhook events out of the records' outboxes and delivers what is due (domain/webhook-dispatcher.ts).
    name: 'webhook-dispatcher',
    data: { table: ['GetItem', 'PutItem', 'UpdateItem'], queriedIndexes: ['deliveries-due'] },
    secrets: ['webhookSecret'],
    storeSecrets: 'read',
    // Runs may overlap (leases keep them apart); a few at most, so a slow endpoint cannot take the account's pool.
    concurrency: { reserved: 2 },
  },
] as const satisfies readonly ScheduledJob[];

// Pure: a function's bundle drops it with the table.
export const scheduledJobs: readonly ScheduledJobName[] = /* @__PURE__ */ jobs.map((job) => job.name);

export type RouteFunctionName = (typeof routes)[number]['name'];
export type ScheduledJobName = (typeof jobs)[number]['name'];
export type FunctionName = RouteFunctionName | ScheduledJobName;
