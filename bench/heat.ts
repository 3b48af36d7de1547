// `npm run bench -- --part heat`: a realistic run of orders over one store and over many, metered per partition key at
// the wire (bench/heat-meter.ts), and what the heat model (bench/heat-model.ts) makes of it at a rate of new orders.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { THROTTLES } from '../lib/plugin-api';
import { routes, scheduledJobs, THROTTLE_BY_ACCESS } from '../lib/routes';
import { listen } from '../local/listen';
import { startLocalStack, type LocalStack } from '../local/stack';
import { MAX_STORE_REQUESTS_PER_SECOND } from '../domain/request-limits';
import { LEASE_PARTITION_PREFIX } from '../store/request-leases';
import {
  CREATED_INDEX,
  DELIVERIES_DUE_INDEX,
  OPEN_ITEMS_INDEX,
  SHARDS_ENV,
  type IndexShards,
} from '../store/schema';
import { checkoutFields } from './calls';
import { atLeast, figure, type Figure } from './figures';
import { startHeatMeter, type HeatMeter } from './heat-meter';
import {
  accountLimits,
  apiRequestsAt,
  concurrencyAt,
  heatOf,
  leaseLoad,
  routeLimits,
  unitsAt,
  type HeatReport,
  type KeyRules,
  type Measured,
} from './heat-model';

export interface HeatSizes {
  /** Orders of the one-store run. */
  oneStoreOrders: number;
  /** Stores of the many-store run, and its orders. */
  stores: number;
  manyStoreOrders: number;
  /** Orders in flight at once. */
  concurrency: number;
}

export const HEAT_SIZES: HeatSizes = {
  oneStoreOrders: 100,
  stores: 100,
  manyStoreOrders: 300,
  concurrency: 8,
};

/** The rates the table prints the load at, in new orders a second. */
const RATES = [1_000, 2_000, 10_000];
const POLLS = 20;
const PAID = 0.8;
const REFUNDED = 0.1;
const FIRST_ATTEMPT_FAILS = 0.2;
const RECONCILE_RUNS = 5;
const ADDRESS = 'bc1qheatrefund0000000000000000000000000';
/** Scheduled jobs that run once per period, whatever the rate; the dispatcher also runs as the stream wakes it. */
const ONE_AT_A_TIME = new Set<string>(scheduledJobs.filter((name) => name !== 'webhook-dispatcher'));

/** The cost table's components (bench/cost.ts) and the functions they time. */
const COST_COMPONENTS: Record<string, string> = {
  checkout: 'checkout',
  poll: 'get-invoice',
  callbacks: 'callbacks',
  'reconcile sweep': 'reconcile',
  webhook: 'webhook-dispatcher',
};

/** Each function's billed ms from the cost table a full bench run wrote (its `billed ms` column). */
export function billedMsOf(costTable: string): Record<string, number> {
  const rows = costTable.split('\n').map((line) => line.split('|').map((cell) => cell.trim()));
  const column = rows[0].indexOf('billed ms');
  const billed: Record<string, number> = {};
  for (const row of rows.slice(2)) {
    const name = COST_COMPONENTS[row[1]];
    if (name && column > 0 && Number.isFinite(Number(row[column]))) billed[name] = Number(row[column]);
  }
  return billed;
}

/** A deterministic draw in [0, 1) for `label`. */
const draw = (label: string) => createHash('sha256').update(label).digest().readUInt32BE(0) / 2 ** 32;

interface Store {
  id: string;
  storefront: string;
  admin: string;
  /** The service's invoice id prefix for the store's orders. */
  prefix: string;
}

/** Every run's figures and the printed table. */
export async function heatModel(
  sizes: HeatSizes,
  shards: IndexShards,
  /** Each function's billed ms as the full bench priced it (its cost table); others are timed in this run. */
  billedMs: Record<string, number>,
): Promise<{ figures: Figure[]; table: string; reports: HeatReport[] }> {
  const meter = await startHeatMeter();
  const endpoint = await startFlakyEndpoint();
  const times = new Map<string, { invocations: number; ms: number }>();
  const stack = await startLocalStack({
    schedule: false,
    webhooks: { url: endpoint.url, intervalMs: 200 },
    env: {
      AWS_ENDPOINT_URL_DYNAMODB: meter.url,
      // The reconcile job looks at every open order on each of its runs, as it would over the orders' minutes.
      RECONCILE_STALE_SECONDS: '1',
      [SHARDS_ENV.open]: String(shards.open),
      [SHARDS_ENV.due]: String(shards.due),
      WEBHOOK_RETRY_SCALE: '0.001',
      // The run meters keys, not limits: no store is refused, whatever this machine's pace.
      STORE_REQUESTS_PER_SECOND: String(MAX_STORE_REQUESTS_PER_SECOND),
    },
    wrapHandler: (name, handler) => (event, context) => {
      const started = performance.now();
      return handler(event, context).finally(() => {
        const seen = times.get(name) ?? { invocations: 0, ms: 0 };
        seen.invocations += 1;
        seen.ms += performance.now() - started;
        times.set(name, seen);
      });
    },
  });
  meter.forwardTo(stack.dynamo.url);
  try {
    const defaultStore: Store = {
      id: 'default',
      storefront: stack.storefrontToken,
      admin: stack.adminToken,
      prefix: '',
    };
    const rules = keyRules(shards);
    const run = (stores: Store[], label: string, orders: number) =>
      measuredRun({ stack, meter, times, billedMs }, stores, label, orders, sizes.concurrency);
    const one = await run([defaultStore], 'one', sizes.oneStoreOrders);
    const many = await run(
      await makeStores(stack, sizes.stores, endpoint.url),
      'many',
      sizes.manyStoreOrders,
    );
    const leases = (measured: Measured, stores: number) => [
      leaseLoad(
        measured,
        LIMITED_FUNCTIONS,
        stores,
        'table',
        `${LEASE_PARTITION_PREFIX}<store>#<second>#<count>`,
      ),
    ];
    const runs = [
      {
        name: 'one store',
        id: 'oneStore',
        measured: one,
        report: heatOf(one, rules, leases(one, 1)),
        target: 2_000,
      },
      {
        name: `${sizes.stores} stores`,
        id: 'manyStores',
        measured: many,
        report: heatOf(many, rules, leases(many, sizes.stores)),
        target: 10_000,
      },
    ];
    return {
      figures: runs.flatMap((run) => heatFigures(run.id, run.name, run.measured, run.report, run.target)),
      table: runs.map((run) => renderHeat(run.name, run.measured, run.report)).join('\n\n'),
      reports: runs.map((run) => run.report),
    };
  } finally {
    await stack.close();
    await endpoint.close();
    await meter.close();
  }
}

/** A run's orders over `stores`, round robin: each order's whole life, the reconcile job now and then, all metered. */
async function measuredRun(
  {
    stack,
    meter,
    times,
    billedMs,
  }: {
    stack: LocalStack;
    meter: HeatMeter;
    times: Map<string, { invocations: number; ms: number }>;
    billedMs: Record<string, number>;
  },
  stores: Store[],
  label: string,
  orders: number,
  concurrency: number,
): Promise<Measured> {
  meter.reset();
  times.clear();
  let next = 0;
  let done = 0;
  const reconcileEvery = Math.ceil(orders / RECONCILE_RUNS);
  const worker = async () => {
    while (next < orders) {
      const n = next++;
      await order(stack, stores[n % stores.length], `heat-${label}-${n}`);
      if (++done % reconcileEvery === 0) await stack.runJob('reconcile');
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await settleWebhooks(stack);
  const apiNames = new Set<string>(routes.map((route) => route.name));
  const functions: Measured['functions'] = {};
  let apiRequests = 0;
  for (const [name, { invocations, ms }] of times) {
    functions[name] = {
      invocations,
      billedMs: billedMs[name] ?? ms / invocations,
      oneAtATime: ONE_AT_A_TIME.has(name),
    };
    if (apiNames.has(name)) apiRequests += invocations;
  }
  return { orders, keys: meter.units(), functions, apiRequests };
}

/** Checkout, polls, payment (most orders) with its callbacks, and a refund of some paid ones. */
async function order(stack: LocalStack, store: Store, foreignId: string): Promise<void> {
  const api = (method: string, path: string, token: string, body?: unknown) =>
    call(`${stack.url}${path}`, method, body, { authorization: `Bearer ${token}` });
  const created = await api('POST', '/checkout', store.storefront, checkoutFields(foreignId));
  if (created.status !== 201) throw new Error(`checkout ${foreignId}: ${created.status}`);
  const poll = () => api('GET', `/invoices/${foreignId}`, store.storefront);
  const paid = draw(`paid ${foreignId}`) < PAID;
  for (let i = 0; i < POLLS / 2; i++) await poll();
  if (paid) {
    const upstream = encodeURIComponent(`${store.prefix}${foreignId}`);
    await call(`${stack.sandbox!.url}/_sandbox/invoices/${upstream}/pay`, 'POST', { kind: 'full' }, {});
  }
  let view = await poll();
  for (let i = 1; i < POLLS / 2; i++) {
    if (paid && (view.body as { refundable?: unknown }).refundable == null) await sleep(50);
    view = await poll();
  }
  if (paid && draw(`refund ${foreignId}`) < REFUNDED / PAID) {
    await api('POST', `/invoices/${foreignId}/refunds`, store.admin, {
      foreign_id: `${foreignId}-r`,
      debited_amount: '1',
      address: ADDRESS,
    });
  }
}

/** Lets the dispatcher deliver what is left, retries included. */
async function settleWebhooks(stack: LocalStack): Promise<void> {
  for (let i = 0; i < 10; i++) {
    await sleep(300);
    await stack.runJob('webhook-dispatcher');
  }
}

async function makeStores(stack: LocalStack, count: number, webhookUrl: string): Promise<Store[]> {
  const stores: Store[] = [];
  for (let i = 0; i < count; i++) {
    const id = `heat-${i}`;
    const made = await call(
      `${stack.url}/stores`,
      'POST',
      { id, name: `Heat store ${i}`, webhook_url: webhookUrl },
      { authorization: `Bearer ${stack.platformToken}` },
    );
    if (made.status !== 201) throw new Error(`POST /stores ${id}: ${made.status}`);
    const body = made.body as { storefront_token: string; admin_token: string };
    stores.push({ id, storefront: body.storefront_token, admin: body.admin_token, prefix: `${id}!` });
  }
  return stores;
}

/**
 * An order's own keys name its foreign_id; the open-items and deliveries-due partitions and the created index's are
 * shards of a family, `<family>#<n>` (an open list's shard 0 is its family's name alone).
 */
function keyRules(shards: IndexShards): KeyRules {
  const counts: Record<string, number> = {
    [OPEN_ITEMS_INDEX.name]: shards.open,
    [DELIVERIES_DUE_INDEX.name]: shards.due,
    [CREATED_INDEX.name]: CREATED_INDEX.shards,
  };
  return {
    // The reconcile job's and the dispatcher's list queries: the local stack runs the dispatcher after every request.
    readPerRun: ({ place }) => place === OPEN_ITEMS_INDEX.name || place === DELIVERIES_DUE_INDEX.name,
    computedApart: ({ key }) => key.startsWith(LEASE_PARTITION_PREFIX),
    // A webhook delivery's item is one event's, of one order.
    isOrderKey: ({ key }) => /heat-(one|many)-\d+|(^|#)WEBHOOK#/.test(key),
    shardFamily: ({ place, key }) => {
      if (place === OPEN_ITEMS_INDEX.name) {
        return { family: `${key.replace(/#\d+$/, '')}#<n>`, shards: counts[place] };
      }
      const match = /^(.*#)\d+$/.exec(key);
      return match && counts[place] ? { family: `${match[1]}<n>`, shards: counts[place] } : undefined;
    },
  };
}

const round = (value: number, digits = 2) => +value.toFixed(digits);

/** A key's limiting rate; a key whose load levels off below the limits has none. */
const rateText = (rate: number) => (Number.isFinite(rate) ? `${Math.floor(rate)}/s` : 'none');

/** The functions whose routes count against a store's request limit (http/route.ts, `authorize`). */
const LIMITED_FUNCTIONS: string[] = routes
  .filter((route) => ['storefront', 'admin', 'customer'].includes(route.access))
  .map((route) => route.name);

/** Each route function's throttle, in requests a second (lib/plugin-api.ts). */
const ROUTE_THROTTLES: Record<string, number> = Object.fromEntries(
  routes.map((route) => [route.name, THROTTLES[THROTTLE_BY_ACCESS[route.access]].rateLimit]),
);

function heatFigures(
  id: string,
  name: string,
  measured: Measured,
  report: HeatReport,
  target: number,
): Figure[] {
  const { lambdaRate, apiRate } = accountLimits(measured);
  return [
    figure({
      id: `heat.${id}.maxRate`,
      label: `heat, ${name}: highest new orders/s with no key over DynamoDB's limits`,
      value: Math.floor(report.maxRate),
      unit: '',
      detail: `set by ${report.limitedBy.place} ${report.limitedBy.key}`,
      target: atLeast(target),
    }),
    ...report.hottest.map((load) =>
      figure({
        id: `heat.${id}.${load.place}.hottest`,
        label: `heat, ${name}: ${load.place}'s hottest key, write units per order`,
        value: round(load.writePerOrder, 3),
        unit: '',
        detail: `${load.key}; ${round(load.readPerOrder, 3)} read units per order; limit at ${rateText(load.maxRate)}`,
      }),
    ),
    figure({
      id: `heat.${id}.apiRequestsPerOrder`,
      label: `heat, ${name}: API requests per order`,
      value: round(apiRequestsAt(measured, 1)),
      unit: '',
      detail: `API Gateway's ${10_000}/s reached at ${Math.floor(apiRate)} orders/s`,
    }),
    ...routeLimits(measured, ROUTE_THROTTLES)
      .slice(0, 1)
      .map((tightest) =>
        figure({
          id: `heat.${id}.routeThrottleRate`,
          label: `heat, ${name}: highest new orders/s within the API's route throttles`,
          value: Math.floor(tightest.maxRate),
          unit: '',
          detail: `${tightest.name}, ${round(tightest.perOrder)} requests an order at ${ROUTE_THROTTLES[tightest.name]}/s`,
        }),
      ),
    figure({
      id: `heat.${id}.lambdaConcurrencyPerOrderRate`,
      label: `heat, ${name}: Lambda concurrency per new order a second`,
      value: round(concurrencyAt(measured, 1).total, 3),
      unit: '',
      detail: `the account's 1,000 reached at ${Math.floor(lambdaRate)} orders/s`,
    }),
  ];
}

function renderHeat(name: string, measured: Measured, report: HeatReport): string {
  const lines = [
    `Heat, ${name} (${measured.orders} orders measured): highest rate with no key over the limits ` +
      `${Math.floor(report.maxRate)} orders/s, set by ${report.limitedBy.place} ${report.limitedBy.key}`,
    '',
    `| place | hottest key | RCU/order | WCU/order | limit at | ${RATES.map((r) => `WCU/s at ${r}`).join(' | ')} |`,
    `| --- | --- | --- | --- | --- | ${RATES.map(() => '---').join(' | ')} |`,
    ...report.hottest.map(
      (load) =>
        `| ${load.place} | ${load.key} | ${round(load.readPerOrder, 3)} | ${round(load.writePerOrder, 3)} | ` +
        `${rateText(load.maxRate)} | ${RATES.map((r) => round(unitsAt(load, r).write, 0)).join(' | ')} |`,
    ),
    '',
    `An order's own item: at most ${round(report.orderKey.readUnits)} RCU and ${round(report.orderKey.writeUnits)} ` +
      'WCU over its life, whatever the rate.',
    '',
    `| function | invocations/order | billed ms | ${RATES.map((r) => `concurrency at ${r}`).join(' | ')} |`,
    `| --- | --- | --- | ${RATES.map(() => '---').join(' | ')} |`,
    ...Object.entries(measured.functions)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(
        ([fn, { invocations, billedMs, oneAtATime }]) =>
          `| ${fn} | ${round(invocations / measured.orders)} | ${round(billedMs, 1)}${oneAtATime ? ' (one at a time)' : ''} | ` +
          `${RATES.map((r) => round(concurrencyAt(measured, r).byFunction[fn], 1)).join(' | ')} |`,
      ),
    `| all | | | ${RATES.map((r) => round(concurrencyAt(measured, r).total, 0)).join(' | ')} |`,
    '',
    `API requests: ${round(apiRequestsAt(measured, 1))} per order; ` +
      RATES.map((r) => `${Math.round(apiRequestsAt(measured, r))}/s at ${r}`).join(', '),
    'Route throttles (lib/plugin-api.ts), the orders a second each allows: ' +
      routeLimits(measured, ROUTE_THROTTLES)
        .map((route) => `${route.name} ${Math.floor(route.maxRate)}`)
        .join(', '),
  ];
  return lines.join('\n');
}

/** A shop's webhook endpoint that fails a fifth of events on their first attempt and takes every retry. */
async function startFlakyEndpoint() {
  const attempted = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const id = String(request.headers['webhook-id'] ?? Buffer.concat(chunks).toString('utf8'));
      const first = !attempted.has(id);
      attempted.add(id);
      response.writeHead(first && draw(`webhook ${id}`) < FIRST_ATTEMPT_FAILS ? 500 : 200);
      response.end();
    });
  });
  return listen(server);
}

async function call(url: string, method: string, body: unknown, headers: Record<string, string>) {
  const response = await fetch(url, {
    method,
    headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body: parsed };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
