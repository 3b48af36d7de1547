import { MAX_STORE_REQUESTS_PER_SECOND } from '../domain/request-limits';
import { DynamoDBClient, paginateScan, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { Decimal } from '../domain/decimal';
import type { SweepReport } from '../domain/reconcile';
import { SECRET_LEASE_MS } from '../domain/stores';
import { LOCAL_CREDENTIALS } from '../local/dynamodb';
import { startLocalStack, type LocalStack } from '../local/stack';
import { startSandbox, type Sandbox } from '../sandbox/server';
import { keyOwner } from '../store/store-scope';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../lib/routes';
import { newWebhookSecret } from '../webhooks/signing';
import { startCallbackRelay, type CallbackFate, type CallbackRelay } from './callback-relay';
import { check, type InvariantResult } from './checker';
import { advanceSoakClock, installSoakClock } from './clock';
import { exchange } from './http';
import {
  faultsInFront,
  startFaultProxy,
  type FaultProxy,
  type FaultLayerOptions,
  type FaultProxyOptions,
  type ProxiedRequest,
  type WireFault,
} from './fault-proxy';
import { FunctionTimes } from './function-time';
import type {
  AccountKind,
  AnswerBody,
  ApiCall,
  History,
  InvoiceView,
  RefundView,
  UpstreamAccount,
} from './history';
import { itemBytes } from './item-size';
import { CALL_HEADER, InvocationKiller, KILL_HEADER } from './kill';
import { Rng } from './random';
import { shopPath, startShop, type Shop, type ShopMood } from './shop';

/** How often each class of fault strikes: a fraction of the requests, callbacks, calls or attempts it can meet. */
export interface FaultRates {
  /** Requests to the service: a 5xx, a hang past the timeout, a reset before or after it commits. */
  service: number;
  /** Callbacks: duplicated, delayed (reordered), dropped, or delivered to an invocation that dies. */
  callbacks: number;
  /** The storefront's and admin's writes, and the jobs' runs: the function's process killed between its writes. */
  kills: number;
  /** DynamoDB calls: throttled or a 500. */
  store: number;
  /** Webhook attempts: the shop's endpoint answers 500, is slow past the timeout, or is down. */
  shop: number;
  /** The shared stores (SHARED_STORES): moved to an account of their own while their orders run. */
  moves: number;
}

export const DEFAULT_RATES: FaultRates = {
  service: 0.06,
  callbacks: 0.2,
  kills: 0.05,
  store: 0.02,
  shop: 0.15,
  moves: 0.5,
};

/**
 * The stores the soak makes beside the default one, each on the deployment's account with its own prefix; half the
 * orders go to one of them. Some are moved to an account of their own mid-run (`FaultRates.moves`).
 */
export const SHARED_STORES = ['soak-a', 'soak-b', 'soak-c', 'soak-d'] as const;

/**
 * What the moves did: the stores moved, and their orders left on the deployment's account (claimed before the move)
 * and made on their own.
 */
export type MoveFigure = 'stores' | 'shared_orders' | 'own_orders';

/**
 * Orders in flight at once in each worker: enough that a worker's process is seldom idle while its orders wait (on
 * the customer's pace, retries, timeouts), so that two workers keep two cores busy.
 */
export const DEFAULT_CONCURRENCY = 32;

export interface SoakOptions {
  seed: number;
  orders: number;
  /** Runs only the orders whose index is `index` modulo `count`: one of `count` processes that share a run. */
  shard?: { index: number; count: number };
  /** Orders in flight at once; DEFAULT_CONCURRENCY when absent. */
  concurrency?: number;
  rates?: FaultRates;
  /** One line per progress step. */
  log?: (line: string) => void;
  /**
   * Puts something between the webhook dispatcher and the shop's endpoint; a test breaks a guarantee there on
   * purpose (a throwaway change of the wiring) to show that the checker notices.
   */
  inFrontOfShop?: (shopUrl: string) => Promise<{ url: string; close(): Promise<void> }>;
}

export interface SoakFigures {
  seed: number;
  orders: number;
  calls: number;
  /** Calls repeated after a 5xx, a 409 in_progress, or a killed invocation. */
  retries: number;
  faults: {
    service: Record<WireFault, number>;
    store: Record<WireFault, number>;
    callbacks: Record<CallbackFate, number>;
    kills: Record<string, number>;
    shop: Record<ShopMood, number>;
    moves: Record<MoveFigure, number>;
  };
  /** Webhook events the shop received (distinct ids), and attempts in all. */
  events: number;
  webhookAttempts: number;
  outcomes: Record<string, number>;
  seconds: number;
  /** CPU time this process spent (the whole stack runs in it), which load on the machine does not inflate much. */
  cpuSeconds: number;
}

export interface SoakResult {
  history: History;
  results: InvariantResult[];
  figures: SoakFigures;
  passed: boolean;
}

const ADDRESS = 'bc1qsoakrefund000000000000000000000000';
const SERVICE_TIMEOUT_MS = 1_500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs the workload against the local stack with faults on, lets it settle, and checks the nine invariants. */
export async function runSoak(options: SoakOptions): Promise<SoakResult> {
  installSoakClock();
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  /** The time and CPU since the start, for the progress lines. */
  const at = () =>
    `${Math.round((performance.now() - started) / 100) / 10} s (${cpuSeconds(process.cpuUsage(cpuBefore))} s of CPU)`;
  const { seed } = options;
  const rates = options.rates ?? DEFAULT_RATES;
  const log = options.log ?? (() => undefined);
  let faultsOn = true;
  const on = (rate: number) => faultsOn && rate > 0;

  // The service and DynamoDB, each behind a proxy that injects faults at the wire.
  const sandbox = await startSandbox({ approvalLimits: APPROVAL_LIMITS });
  const serviceAttempts = new Map<string, number>();
  /** The service's faults, decided by the request and its foreign_id; `account` tells a store's own account apart. */
  const serviceFaults =
    (account: string): FaultProxyOptions['decide'] =>
    (request) => {
      const key = `${account}${request.method} ${request.path.split('?')[0]} ${foreignIdOf(request)}`;
      const attempt = (serviceAttempts.get(key) ?? 0) + 1;
      serviceAttempts.set(key, attempt);
      const rng = Rng.for(seed, 'service', key, attempt);
      if (!on(rates.service) || !rng.chance(rates.service)) return { fault: 'pass' };
      const fault = rng.weighted<Exclude<WireFault, 'pass'>>({
        refuse: 3,
        hang: 1,
        reset_before: 2,
        reset_after: 2,
      });
      return {
        fault,
        answer: { status: 503, type: 'application/json', body: '{"error":"Service unavailable"}' },
      };
    };
  const service = await startFaultProxy({ target: () => sandbox.url, decide: serviceFaults('') });
  const storeRng = Rng.for(seed, 'store');
  const itemSizes = new Map<string, number>();
  const refusedForSize: string[] = [];
  const claimedOn: NonNullable<History['accounts']> = { invoices: {}, refunds: {} };
  const storeFaults: FaultLayerOptions = {
    decide: () => {
      if (!on(rates.store) || !storeRng.chance(rates.store)) return { fault: 'pass' };
      const throttle = storeRng.chance(0.5);
      return {
        fault: 'refuse',
        answer: {
          status: throttle ? 400 : 500,
          type: 'application/x-amz-json-1.0',
          body: JSON.stringify(
            throttle
              ? { __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException', message: 'Rate exceeded' }
              : { __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal error' },
          ),
        },
      };
    },
    onExchange: (request, status, body) => recordItem(request, status, body),
  };
  let store: FaultProxy | undefined;
  const killer = new InvocationKiller((name) => {
    const rng = Rng.for(seed, 'job', name, jobRuns++);
    return on(rates.kills) && name !== 'snapshot-balances' && rng.chance(rates.kills)
      ? rng.int(1, 4)
      : undefined;
  });
  let jobRuns = 0;
  const functionTimes = new FunctionTimes();

  const webhookSecret = newWebhookSecret();
  const shop = await startShop(webhookSecret, (eventId, attempt) => {
    const rng = Rng.for(seed, 'shop', eventId, attempt);
    if (!on(rates.shop) || !rng.chance(rates.shop)) return { mood: 'ok', slowMs: 0 };
    return { mood: rng.weighted<Exclude<ShopMood, 'ok'>>({ error: 2, slow: 1, down: 1 }), slowMs: 1_500 };
  });
  const front = options.inFrontOfShop ? await options.inFrontOfShop(shop.url) : undefined;

  let stack: LocalStack | undefined;
  const callbackFate = (
    body: string,
    attempt: number,
  ): { fate: CallbackFate; delayMs: number; killAfter: number } => {
    const rng = Rng.for(seed, 'callback', body, attempt);
    const fate =
      on(rates.callbacks) && rng.chance(rates.callbacks)
        ? rng.weighted<Exclude<CallbackFate, 'pass'>>({ duplicate: 3, delay: 3, drop: 1, kill: 1 })
        : 'pass';
    return { fate, delayMs: rng.int(50, 1_500), killAfter: rng.int(1, 4) };
  };
  const relay: CallbackRelay = await startCallbackRelay(() => `${stack!.url}/callbacks`, callbackFate);
  /** The own accounts the moving stores move to, each a sandbox of its own behind the same faults. */
  const ownAccounts: OwnAccount[] = [];

  try {
    stack = await startLocalStack({
      schedule: false,
      webhooks: { url: front?.url ?? shop.url, secret: webhookSecret, intervalMs: 250 },
      wrapHandler: (name, handler) => killer.wrap(name, functionTimes.wrap(handler)),
      env: {
        PROCESSING_TIMEOUT_MS: String(SERVICE_TIMEOUT_MS),
        RECONCILE_EXPIRY_GRACE_SECONDS: '1',
        WEBHOOK_RETRY_SCALE: '0.01',
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_LEASE_MS: '3000',
        // Longer than a customer takes to claim, shorter than the quiet period's jumps: one left alone expires there.
        CLAIM_LINK_DAYS: String(CLAIM_LINK_HOURS / 24),
        // The soak's stores make orders as fast as the machine allows: the limits are not what it tests.
        STORE_REQUESTS_PER_SECOND: String(MAX_STORE_REQUESTS_PER_SECOND),
      },
      processing: { baseUrl: service.url, apiKey: sandbox.apiKey, secretKey: sandbox.secretKey },
    });
    const local = stack;
    const { index: shard, count: shards } = options.shard ?? { index: 0, count: 1 };
    const indexes = Array.from({ length: options.orders }, (_, index) => index).filter(
      (i) => i % shards === shard,
    );
    // The shared stores are made before DynamoDB's faults go on: making them is the setting, not the test.
    const stores = await makeStores(local, sandbox.url, front?.url ?? shop.url);
    const movers = on(rates.moves) ? moving(seed, rates.moves) : new Set<string>();
    for (const soakStore of stores.values()) {
      const mine = indexes.filter((index) => storeOf(seed, index) === soakStore.id);
      if (!movers.has(soakStore.id) || mine.length === 0) continue;
      const rng = Rng.for(seed, 'move', soakStore.id);
      // Among the store's orders, so that some are claimed before the move and some after it.
      soakStore.moveAt = mine[rng.int(Math.floor(mine.length * 0.2), Math.floor(mine.length * 0.6))];
      soakStore.own = await startOwnAccount(soakStore.id);
    }
    // DynamoDB's faults go in front of the dynalite the stack started, before any order's handler runs.
    store = faultsInFront(local.dynamo.server, storeFaults);
    await control(sandbox.url, 'POST', '/callbacks', {
      url: relay.url,
      retry_ms: CALLBACK_RETRY_MS,
    });
    const balancesBefore = await balances(sandbox.url);

    const calls: ApiCall[] = [];
    const api = new Api(local, killer, functionTimes, calls);
    const orders: string[] = [];
    const refundIds = new Map<string, SoakStore>();

    // The reconcile job runs often while the workload runs, as a scheduler a few times a minute would at scale.
    let working = true;
    const sweeper = (async () => {
      while (working) {
        await local.runJob('reconcile').catch(() => undefined);
        await sleep(300);
      }
    })();

    const workload = new Workload(seed, api, stores, shop, orders, refundIds, rates.kills);
    let [next, done] = [0, 0];
    await Promise.all(
      Array.from({ length: options.concurrency ?? DEFAULT_CONCURRENCY }, async () => {
        while (next < indexes.length) {
          const index = indexes[next++];
          // From here on the lanes only finish their orders, the slowest (a claim held by a killed call) last.
          if (next === indexes.length) log(`last order started at ${at()}`);
          await workload.order(index);
          if (++done % 500 === 0) log(`${done} orders`);
        }
      }),
    );
    await Promise.all(workload.moves);
    working = false;
    await sweeper;
    log(`workload done at ${at()}; quiet period`);

    // The quiet period: faults off, time jumps past every timer, lease and wait; the jobs catch up.
    faultsOn = false;
    const relays = [relay, ...ownAccounts.map((own) => own.relay)];
    const sandboxes = [sandbox, ...ownAccounts.map((own) => own.sandbox)];
    const relaysIdle = () => Promise.all(relays.map((each) => each.idle()));
    await relaysIdle();
    log(`delayed callbacks delivered at ${at()}`);
    for (const jumpMinutes of [20, 180, 720]) {
      advanceSoakClock(jumpMinutes * 60_000);
      // Any request makes a sandbox expire what is due.
      for (const each of sandboxes) await control(each.url, 'GET', '/stats');
      const swept = await reconcileUntilCaughtUp(local);
      const reconciled = at();
      await relaysIdle();
      await settledDeliveries(shop);
      log(
        `+${jumpMinutes} min: ${swept.runs} reconcile runs, ${swept.records} records, done at ${reconciled}; webhooks settled at ${at()}`,
      );
    }

    log(`quiet period done at ${at()}`);
    // Several reads at once, so that the process does not wait on each round trip in turn; nothing changes meanwhile.
    const invoiceViews = await eachAtOnce(
      orders,
      FINAL_READS_AT_ONCE,
      (order) =>
        api.view(
          `/invoices/${order}`,
          workload.storeOfOrder.get(order)!.tokens,
        ) as Promise<InvoiceView | null>,
    );
    const refundViews = await eachAtOnce(
      [...refundIds.keys()],
      FINAL_READS_AT_ONCE,
      (refund) =>
        api.view(
          `/refunds/${refund}`,
          refundIds.get(refund)!.tokens,
        ) as Promise<unknown> as Promise<RefundView | null>,
    );
    const final: History['final'] = {
      invoices: Object.fromEntries(invoiceViews),
      refunds: Object.fromEntries(refundViews),
    };
    const shared = await upstreamRecords(sandbox.url, balancesBefore);
    const own: Record<string, UpstreamAccount> = {};
    for (const account of ownAccounts) {
      own[account.storeId] = await upstreamRecords(account.sandbox.url, account.balancesBefore);
    }
    await scanItems(local);
    log(`final views, the service's records and the table read at ${at()}`);

    const storeOfOrders = Object.fromEntries(
      [...workload.storeOfOrder]
        .filter(([, where]) => where.id !== 'default')
        .map(([order, where]) => [order, where.id]),
    );
    const history: History = {
      seed,
      orders,
      calls,
      deliveries: shop.deliveries,
      callbacks: relays.flatMap((each) => each.log),
      final,
      upstream: { ...shared, ...(ownAccounts.length > 0 && { own }) },
      stores: storeOfOrders,
      accounts: claimedOn,
      store: {
        largestItems: [...itemSizes].map(([key, bytes]) => ({ key, bytes })),
        refusedForSize,
      },
      endedAt: Date.now(),
      apiTimeoutMs: API_FUNCTION_TIMEOUT_SECONDS * 1000,
    };
    const results = check(history);
    log(`invariants checked at ${at()}`);
    const outcomes: Record<string, number> = {};
    for (const view of Object.values(final.invoices)) {
      const key = view ? `${view.status}${view.exception ? `/${view.exception}` : ''}` : 'none';
      outcomes[key] = (outcomes[key] ?? 0) + 1;
    }
    const moved = new Set([...stores.values()].filter((each) => each.moved).map((each) => each.id));
    const movedOrders = orders.filter((order) => moved.has(storeOfOrders[order]));
    const figures: SoakFigures = {
      seed,
      orders: orders.length,
      calls: calls.length,
      retries: api.retries,
      faults: {
        service: sumCounts([service, ...ownAccounts.map((each) => each.service)].map((each) => each.counts)),
        store: { ...store.counts },
        callbacks: sumCounts(relays.map((each) => each.fates)),
        kills: Object.fromEntries(killer.kills),
        shop: { ...shop.moods },
        moves: {
          stores: moved.size,
          shared_orders: movedOrders.filter((order) => claimedOn.invoices[order] === 'shared').length,
          own_orders: movedOrders.filter((order) => claimedOn.invoices[order] === 'own').length,
        },
      },
      events: new Set(shop.deliveries.filter((d) => d.answered === 200).map((d) => d.eventId)).size,
      webhookAttempts: shop.deliveries.length,
      outcomes,
      seconds: Math.round((performance.now() - started) / 100) / 10,
      cpuSeconds: cpuSeconds(process.cpuUsage(cpuBefore)),
    };
    return { history, results, figures, passed: results.every((result) => result.violations.length === 0) };
  } finally {
    killer.close();
    await stack?.close();
    await relay.close();
    for (const own of ownAccounts) await own.close();
    await front?.close();
    await shop.close();
    await store?.close();
    await service.close();
    await sandbox.close();
  }

  /** Makes the shared stores, each sending its webhooks to a path of its own at the shop. */
  async function makeStores(
    local: LocalStack,
    sharedUrl: string,
    shopUrl: string,
  ): Promise<Map<string, SoakStore>> {
    const made = new Map<string, SoakStore>([
      [
        'default',
        {
          id: 'default',
          tokens: { storefront: local.storefrontToken, admin: local.adminToken },
          shared: { url: sharedUrl, prefix: '' },
        },
      ],
    ]);
    for (const id of SHARED_STORES) {
      const { status, text } = await exchange(
        `${local.url}/stores`,
        'POST',
        { authorization: `Bearer ${local.platformToken}`, 'content-type': 'application/json' },
        JSON.stringify({ id, name: `Soak store ${id}`, webhook_url: `${shopUrl}${shopPath(id)}` }),
      );
      if (status !== 201) throw new Error(`POST /stores ${id} answered ${status}: ${text}`);
      const body = JSON.parse(text) as {
        storefront_token: string;
        admin_token: string;
        webhook_secret: string;
      };
      shop.addStore(id, body.webhook_secret);
      made.set(id, {
        id,
        tokens: { storefront: body.storefront_token, admin: body.admin_token },
        shared: { url: sharedUrl, prefix: `${id}!` },
      });
    }
    return made;
  }

  /** A sandbox with keys of its own, behind the service's faults, its callbacks relayed to the store's route. */
  async function startOwnAccount(storeId: string): Promise<OwnAccount> {
    const keys = { apiKey: `soak-${storeId}-api-key`, secretKey: `soak-${storeId}-secret-key` };
    const own = await startSandbox({ ...keys, approvalLimits: APPROVAL_LIMITS });
    const ownService = await startFaultProxy({ target: () => own.url, decide: serviceFaults(`${storeId} `) });
    const ownRelay = await startCallbackRelay(() => `${stack!.url}/callbacks/${storeId}`, callbackFate);
    await control(own.url, 'POST', '/callbacks', { url: ownRelay.url, retry_ms: CALLBACK_RETRY_MS });
    const account: OwnAccount = {
      storeId,
      sandbox: own,
      service: ownService,
      relay: ownRelay,
      keys: { api_key: keys.apiKey, secret_key: keys.secretKey, base_url: ownService.url },
      place: { url: own.url, prefix: '' },
      balancesBefore: await balances(own.url),
      close: async () => {
        await ownRelay.close();
        await ownService.close();
        await own.close();
      },
    };
    ownAccounts.push(account);
    return account;
  }

  function recordItem(request: ProxiedRequest, status: number, body: () => string): void {
    const target = String(request.headers['x-amz-target'] ?? '');
    if (status === 400 && /item size/i.test(body())) {
      refusedForSize.push(`${target} ${request.body.toString('utf8').slice(0, 200)}`);
    }
    if (!target.endsWith('.PutItem') || status !== 200) return;
    const { Item } = JSON.parse(request.body.toString('utf8')) as { Item: Record<string, AttributeValue> };
    noteItem(Item);
  }

  function noteItem(item: Record<string, AttributeValue>): void {
    const key = `${item.pk?.S ?? '?'}|${item.sk?.S ?? '?'}`;
    const bytes = itemBytes(item);
    if (bytes > (itemSizes.get(key) ?? 0)) itemSizes.set(key, bytes);
  }

  /** An invoice or refund record's account, as its item holds it. */
  function noteAccount(item: Record<string, AttributeValue>): void {
    const kind = item.sk?.S;
    if ((kind !== 'INVOICE' && kind !== 'REFUND') || !item.pk?.S || !item.data?.S) return;
    const { key } = keyOwner(item.pk.S);
    const record = JSON.parse(item.data.S) as { account?: AccountKind };
    if (record.account === undefined) return;
    const foreignId = key.slice(`${kind}#`.length);
    claimedOn[kind === 'INVOICE' ? 'invoices' : 'refunds'][foreignId] = record.account;
  }

  async function scanItems(local: LocalStack): Promise<void> {
    const client = new DynamoDBClient({
      endpoint: local.dynamo.url,
      region: 'us-east-1',
      credentials: LOCAL_CREDENTIALS,
    });
    for await (const page of paginateScan({ client }, { TableName: local.tableName })) {
      for (const item of page.Items ?? []) {
        noteItem(item);
        noteAccount(item);
      }
    }
    client.destroy();
  }
}

/** How long a claim link lasts: the quiet period's second jump passes it. */
const CLAIM_LINK_HOURS = 3;

/** How the sandboxes retry a callback the relay did not take. */
const CALLBACK_RETRY_MS = [200, 500, 1_000, 2_000, 4_000];
/** Every account holds a withdrawal over these for an owner's approval: the larger orders' refunds wait for one. */
const APPROVAL_LIMITS = { EUR: '250', USD: '250' };

/** Where a store's orders go, drawn from a generator of the order's own, so that its other decisions stay as they were. */
function storeOf(seed: number, index: number): string {
  const rng = Rng.for(seed, 'store-of', index);
  return rng.chance(0.5) ? 'default' : rng.pick(SHARED_STORES);
}

/** The shared stores that move: `rate` of them, drawn from the seed. */
function moving(seed: number, rate: number): Set<string> {
  const rng = Rng.for(seed, 'moving');
  const left: string[] = [...SHARED_STORES];
  const chosen = new Set<string>();
  while (chosen.size < Math.round(rate * SHARED_STORES.length) && left.length > 0) {
    chosen.add(left.splice(rng.int(0, left.length - 1), 1)[0]);
  }
  return chosen;
}

/** An account's invoices, withdrawals and the withdrawals it accepted, and its balances now. */
async function upstreamRecords(
  sandboxUrl: string,
  balancesBefore: Record<string, string>,
): Promise<UpstreamAccount> {
  const transactions = await control(sandboxUrl, 'GET', '/transactions');
  const accepted = (
    await control(sandboxUrl, 'GET', '/requests?path=/v2/crypto/withdrawal_instant_exchange')
  ).requests
    .filter((request: { status: number | null }) => request.status !== null && request.status < 300)
    .map((request: { body: string }) => JSON.parse(request.body).foreign_id);
  return {
    invoices: transactions.invoices,
    withdrawals: transactions.withdrawals,
    withdrawalsAccepted: accepted,
    balancesBefore,
    balancesAfter: await balances(sandboxUrl),
  };
}

function sumCounts<K extends string>(parts: Array<Record<K, number>>): Record<K, number> {
  const total = { ...parts[0] };
  for (const part of parts.slice(1)) {
    for (const key of Object.keys(part) as K[]) total[key] = (total[key] ?? 0) + part[key];
  }
  return total;
}

/** A store's bearer tokens. */
interface StoreTokens {
  storefront: string;
  admin: string;
}

/** A payment service account as the customer and the service's operator reach it: its sandbox, and its prefix. */
interface AccountPlace {
  url: string;
  /** `<store>!` for a store other than the default one on the deployment's account. */
  prefix: string;
}

/** A store the workload's orders go to. */
interface SoakStore {
  id: string;
  tokens: StoreTokens;
  /** The deployment's account, as this store's foreign_ids are named there. */
  shared: AccountPlace;
  /** The order whose start sends the move, for a store that moves. */
  moveAt?: number;
  own?: OwnAccount;
  /** Whether its move was answered 200. */
  moved?: boolean;
}

/** The account a store moves to. */
interface OwnAccount {
  storeId: string;
  sandbox: Sandbox;
  service: FaultProxy;
  relay: CallbackRelay;
  /** The `processing` of the PATCH that moves it. */
  keys: { api_key: string; secret_key: string; base_url: string };
  place: AccountPlace;
  balancesBefore: Record<string, string>;
  close(): Promise<void>;
}

function cpuSeconds({ user, system }: NodeJS.CpuUsage): number {
  return Math.round((user + system) / 100_000) / 10;
}

/** The foreign_id a request to the service is about, so that a fault's decision follows the order, not timing. */
function foreignIdOf(request: ProxiedRequest): string {
  const query = new URL(request.path, 'http://x').searchParams;
  if (query.get('foreign_id') || query.get('id')) return query.get('foreign_id') ?? query.get('id')!;
  try {
    return String(JSON.parse(request.body.toString('utf8')).foreign_id ?? '');
  } catch {
    return '';
  }
}

/** The sandbox's control API; its answers are read as the checker needs them (docs/sandbox.md). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the control API's many shapes, read field by field
type ControlAnswer = { status: number } & Record<string, any>;

async function control(
  sandboxUrl: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<ControlAnswer> {
  const { status, text } = await exchange(
    `${sandboxUrl}/_sandbox${path}`,
    method,
    body === undefined ? {} : { 'content-type': 'application/json' },
    body === undefined ? undefined : JSON.stringify(body),
  );
  return { status, ...(text ? JSON.parse(text) : {}) };
}

async function balances(sandboxUrl: string): Promise<Record<string, string>> {
  const { data } = await control(sandboxUrl, 'GET', '/balances');
  return Object.fromEntries(
    data.map((entry: { currency: string; balance: string }) => [entry.currency, entry.balance]),
  );
}

/** The final views read at once at the end of a run. */
const FINAL_READS_AT_ONCE = 16;

/** `read` of every key, at most `atOnce` at a time; the answers in the keys' order. */
async function eachAtOnce<T>(
  keys: string[],
  atOnce: number,
  read: (key: string) => Promise<T>,
): Promise<Array<[string, T]>> {
  const answers: Array<[string, T]> = keys.map((key) => [key, undefined as T]);
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < keys.length) {
        const index = next++;
        answers[index][1] = await read(keys[index]);
      }
    }),
  );
  return answers;
}

/**
 * Runs the reconcile job, as its schedule would, until a run finds nothing due: each run takes one batch, and after a
 * jump of the clock every open order of a long run is due at once. Twice at least, as an unknown create's claim is
 * given up on only at a second look.
 */
async function reconcileUntilCaughtUp(stack: LocalStack): Promise<{ runs: number; records: number }> {
  let records = 0;
  for (let run = 1; run <= 1_000; run++) {
    const report = (await stack.runJob('reconcile').catch(() => undefined)) as SweepReport | undefined;
    const found = report ? report.invoicesChecked + report.refundsChecked + report.deferred : 1;
    records += report ? report.invoicesChecked + report.refundsChecked + report.invoicesAbandoned : 0;
    if (run >= 2 && found === 0) return { runs: run, records };
  }
  return { runs: 1_000, records };
}

/** Waits until the shop has heard nothing new for a while: the dispatcher has caught up. */
async function settledDeliveries(shop: Shop): Promise<void> {
  let seen = -1;
  while (seen !== shop.deliveries.length) {
    seen = shop.deliveries.length;
    await sleep(700);
  }
}

/**
 * Whom a call is made as: a store's storefront (the default store's when absent) or admin, the platform, or a
 * customer holding a claim link's token.
 */
interface CallOptions {
  order?: string;
  refund?: string;
  store?: StoreTokens;
  admin?: boolean;
  platform?: boolean;
  claimToken?: string;
  alongside?: boolean;
  body?: unknown;
}

/** Calls the plugin's API as the storefront, the admin or the platform, recording every call. */
class Api {
  retries = 0;
  private nextCall = 0;

  constructor(
    private readonly stack: LocalStack,
    private readonly killer: InvocationKiller,
    private readonly functionTimes: FunctionTimes,
    private readonly calls: ApiCall[],
  ) {}

  async call(
    action: string,
    method: string,
    path: string,
    options: CallOptions & { killAfter?: number } = {},
  ): Promise<ApiCall> {
    const id = String(++this.nextCall);
    const tokens = options.store ?? { storefront: this.stack.storefrontToken, admin: this.stack.adminToken };
    const token = options.platform
      ? this.stack.platformToken
      : options.admin
        ? tokens.admin
        : tokens.storefront;
    const headers: Record<string, string> =
      options.claimToken === undefined
        ? { authorization: `Bearer ${token}`, [CALL_HEADER]: id }
        : { 'x-claim-token': options.claimToken, [CALL_HEADER]: id };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.killAfter !== undefined) headers[KILL_HEADER] = String(options.killAfter);
    const started = performance.now();
    const { status, text } = await exchange(
      `${this.stack.url}${path}`,
      method,
      headers,
      options.body === undefined ? undefined : JSON.stringify(options.body),
    );
    const call: ApiCall = {
      order: options.order,
      ...(options.refund !== undefined && { refund: options.refund }),
      action,
      method,
      path,
      status,
      body: parse(text),
      ms: Math.round(performance.now() - started),
      functionMs: this.functionTimes.of(id),
      ...(this.killer.killedCalls.has(id) && { killed: true }),
      ...(options.alongside && { alongside: true }),
    };
    this.calls.push(call);
    return call;
  }

  /**
   * A write retried as a storefront or an admin would, with the same body: after a 5xx, a 409 in_progress or a
   * killed invocation, up to `attempts` times. Answers the last call.
   */
  async retried(
    rng: Rng,
    action: string,
    method: string,
    path: string,
    options: CallOptions & { killRate: number; attempts?: number },
  ): Promise<ApiCall> {
    for (let attempt = 1; ; attempt++) {
      const killAfter = rng.chance(options.killRate) ? rng.int(1, 4) : undefined;
      const call = await this.call(action, method, path, { ...options, killAfter });
      const again = call.status >= 500 || (call.status === 409 && call.body?.error?.code === 'in_progress');
      if (!again || attempt >= (options.attempts ?? 12)) return call;
      this.retries++;
      await sleep(rng.int(20, 80) * attempt);
    }
  }

  async view(path: string, store: StoreTokens): Promise<AnswerBody | null> {
    for (let attempt = 0; attempt < 10; attempt++) {
      const call = await this.call('final', 'GET', path, { admin: true, store });
      if (call.status === 200) return call.body;
      if (call.status === 404) return null;
      await sleep(200);
    }
    throw new Error(`${path} never answered`);
  }
}

function parse(text: string): AnswerBody {
  try {
    return JSON.parse(text) as AnswerBody;
  } catch {
    return { text };
  }
}

/**
 * A storefront retries a checkout until it has an answer, as the README asks: a create whose answer was lost waits
 * for that retry. Enough attempts to outlast two claims held by killed calls (each answered 409 in_progress, about
 * 5 s a time, until its lease runs out) on a busy machine, where the service's answers also come late.
 */
const CHECKOUT_ATTEMPTS = 30;

/** How long a platform keeps sending a move that has no answer yet: past the lease a killed move leaves. */
const MOVE_PATIENCE_MS = 2 * SECRET_LEASE_MS;
const MOVE_PAUSE_MS = 2_000;

type Behaviour = 'full' | 'over' | 'under' | 'instalments' | 'late' | 'never' | 'held';

/** What becomes of a claim link: see `Workload.customer`. */
type ClaimFate = 'once' | 'twice' | 'again' | 'cancel' | 'race' | 'expire';

/** Of the refunds asked for, the share made without an address, by a claim link. */
const CLAIM_LINK_SHARE = 0.3;

/** One order's life, every decision drawn from the order's own generator. */
class Workload {
  /** The store each order was made in. */
  readonly storeOfOrder = new Map<string, SoakStore>();
  /** The moves sent while the orders run. */
  readonly moves: Array<Promise<void>> = [];

  constructor(
    private readonly seed: number,
    private readonly api: Api,
    private readonly stores: Map<string, SoakStore>,
    private readonly shop: Shop,
    private readonly orders: string[],
    /** Each refund asked for, and its store. */
    private readonly refundIds: Map<string, SoakStore>,
    /** How often a write's invocation is killed. */
    private readonly killRate: number,
  ) {}

  async order(index: number): Promise<void> {
    const rng = Rng.for(this.seed, 'order', index);
    const order = `soak-${this.seed}-${index}`;
    const store = this.stores.get(storeOf(this.seed, index))!;
    this.orders.push(order);
    this.storeOfOrder.set(order, store);
    // Sent as this order's checkout starts, with the store's other orders in flight around it.
    if (store.moveAt === index) this.moves.push(this.move(store));
    const timer = rng.chance(0.85);
    const type = rng.chance(0.6) ? 'fill_or_kill' : 'good_until_expired';
    const sender = timer && rng.chance(0.8) ? rng.pick(['BTC', 'ETH', 'LTC', 'USDT']) : undefined;
    const cents = rng.chance(0.05) ? rng.int(50, 450) : rng.int(500, 200_000);
    const body = {
      foreign_id: order,
      amount: new Decimal(cents).div(100).toFixed(2),
      currency: rng.pick(['EUR', 'USD']),
      ...(sender && { sender_currency: sender }),
      title: `Soak order ${index}`,
      email: 'customer@example.com',
      url_success: 'https://shop.example/ok',
      url_failed: 'https://shop.example/failed',
      type,
      timer,
    };
    const behaviour = rng.weighted<Behaviour>({
      full: 30,
      over: 10,
      under: 10,
      instalments: 10,
      late: timer && sender ? 10 : 0,
      never: 15,
      held: 15,
    });
    const cancelAt = rng.weighted({ none: 80, before: 6, during: 8, after: 6 });

    const checkout = () =>
      this.api.retried(rng, 'checkout', 'POST', '/checkout', {
        order,
        store: store.tokens,
        body,
        killRate: this.killRate,
        attempts: CHECKOUT_ATTEMPTS,
      });
    let created = await checkout();
    if (created.status >= 300) return;
    if (rng.chance(0.15)) created = await checkout();
    const upstream = await this.upstreamInvoice(store, order, created.body.processor_invoice_id ?? null);
    if (!upstream) return;
    await this.poll(rng, store, order);

    const cancel = () =>
      this.api.retried(rng, 'cancel', 'POST', `/invoices/${order}/cancel`, {
        order,
        store: store.tokens,
        admin: true,
        killRate: this.killRate,
        attempts: 5,
      });
    if (cancelAt === 'before') await cancel();
    await this.pay(rng, upstream, behaviour, type, cancelAt === 'during' ? cancel : undefined);
    await this.poll(rng, store, order);
    if (cancelAt === 'after') await cancel();
    const view = await this.poll(rng, store, order);
    // The order's refunds go from the account its invoice is on.
    if (view && rng.chance(0.6)) await this.refund(rng, store, upstream.account, order, view);
    if (rng.chance(0.05)) await this.resend(rng, store, order);
  }

  /**
   * Moves the store to its own account, as the platform would: retried as any write, and then again a while later
   * until it has an answer, so that a move killed while it held the store's lease is finished once the lease ends.
   */
  private async move(store: SoakStore): Promise<void> {
    const rng = Rng.for(this.seed, 'move', store.id, 'call');
    const until = performance.now() + MOVE_PATIENCE_MS;
    for (;;) {
      const call = await this.api.retried(rng, 'move', 'PATCH', `/stores/${store.id}`, {
        platform: true,
        body: { processing: store.own!.keys },
        killRate: this.killRate,
      });
      const again = call.status >= 500 || (call.status === 409 && call.body?.error?.code === 'in_progress');
      if (!again || performance.now() > until) {
        store.moved = call.status === 200 && call.body.account === 'own';
        return;
      }
      await sleep(MOVE_PAUSE_MS);
    }
  }

  /**
   * The service's invoice the order's view names, on whichever account the store has had: its foreign_id there (a
   * retry after a lost answer adds `~n`) and that account.
   */
  private async upstreamInvoice(
    store: SoakStore,
    order: string,
    id: number | null,
  ): Promise<{ account: AccountPlace; foreignId: string } | undefined> {
    const accounts = [store.shared, ...(store.own ? [store.own.place] : [])];
    for (let attempt = 1; attempt <= 5 && id != null; attempt++) {
      const candidate = attempt === 1 ? order : `${order}~${attempt}`;
      for (const account of accounts) {
        const foreignId = `${account.prefix}${candidate}`;
        const found = await control(account.url, 'GET', `/invoices/${encodeURIComponent(foreignId)}`);
        if (found.id === id) return { account, foreignId };
      }
    }
    return undefined;
  }

  private async pay(
    rng: Rng,
    { account, foreignId }: { account: AccountPlace; foreignId: string },
    behaviour: Behaviour,
    type: string,
    cancelMeanwhile?: () => Promise<unknown>,
  ): Promise<void> {
    const path = `/invoices/${encodeURIComponent(foreignId)}`;
    const service = (method: string, to: string, body?: unknown) => control(account.url, method, to, body);
    const pay = (body: Record<string, unknown>) => service('POST', `${path}/pay`, body);
    const partly = type === 'good_until_expired';
    switch (behaviour) {
      case 'full':
      case 'over':
        await pay({ kind: behaviour });
        break;
      case 'under':
        await pay({ kind: partly ? 'partial' : 'under' });
        if (partly) await service('POST', `${path}/expire`);
        break;
      case 'instalments':
        if (partly) await pay({ kind: 'partial' });
        await sleep(rng.int(0, 100));
        await pay({ kind: rng.chance(0.8) ? 'full' : 'over' });
        break;
      case 'late':
        await service('POST', `${path}/expire`);
        await sleep(rng.int(0, 100));
        await pay({ kind: rng.chance(0.8) ? 'full' : 'over' });
        break;
      case 'held':
        await pay({ kind: 'full', hold: true });
        await sleep(rng.int(0, 100));
        await cancelMeanwhile?.();
        await service('POST', `${path}/settle`);
        return;
      case 'never':
        if (rng.chance(0.5)) await service('POST', `${path}/expire`);
        break;
    }
    await cancelMeanwhile?.();
  }

  private async poll(rng: Rng, store: SoakStore, order: string): Promise<AnswerBody | undefined> {
    let view: AnswerBody | undefined;
    for (let polls = rng.int(1, 3); polls > 0; polls--) {
      const call = await this.api.call('poll', 'GET', `/invoices/${order}`, { order, store: store.tokens });
      if (call.status === 200) view = call.body;
      await sleep(rng.int(5, 50));
    }
    return view;
  }

  /**
   * Refunds at once, some over what is left, one maybe repeated, some by a claim link whose customer then gives the
   * address (or not); then the service completes the withdrawals.
   */
  private async refund(
    rng: Rng,
    store: SoakStore,
    account: AccountPlace,
    order: string,
    view: AnswerBody,
  ): Promise<void> {
    const left = view.refundable?.amount;
    const count = rng.int(1, 3);
    const bodies = Array.from({ length: count }, (_, k) => {
      const share = rng.weighted({ all: 2, part: 5, over: 2 });
      const amount =
        share === 'all' || !left
          ? undefined
          : share === 'part'
            ? new Decimal(left).times(rng.int(5, 60)).div(100).toFixed(2)
            : new Decimal(left).times(1.5).plus(1).toFixed(2);
      const foreignId = `${order}-r${k}`;
      // Decided apart from the workload's own draws, so that its other decisions stay as they were.
      const byLink = Rng.for(this.seed, 'claim-link', foreignId).chance(CLAIM_LINK_SHARE);
      return {
        foreign_id: foreignId,
        ...(!byLink && { address: ADDRESS }),
        ...(amount && { debited_amount: amount }),
      };
    });
    if (rng.chance(0.25)) bodies.push(bodies[0]);
    for (const body of bodies) this.refundIds.set(body.foreign_id, store);
    // Each request draws from its own generator: sent at once, their turns would otherwise follow the timing.
    const answers = await Promise.all(
      bodies.map((body, k) =>
        this.api.retried(
          Rng.for(this.seed, 'refund-send', order, k),
          'refund',
          'POST',
          `/invoices/${order}/refunds`,
          {
            order,
            store: store.tokens,
            admin: true,
            body,
            killRate: this.killRate,
            attempts: 6,
          },
        ),
      ),
    );
    // Each claim link goes to its customer; one that took no address has no withdrawal for the service to finish.
    const unclaimed = new Set<string>();
    const links = new Set(bodies.filter((body) => body.address === undefined).map((body) => body.foreign_id));
    await Promise.all(
      [...links].map(async (foreignId) => {
        const answered = answers.find(
          (answer, k) => bodies[k].foreign_id === foreignId && typeof answer.body.claim_url === 'string',
        );
        const link = answered
          ? String(answered.body.claim_url)
          : await this.claimUrl(store, order, foreignId);
        if (!link || !(await this.customer(store, order, foreignId, link))) unclaimed.add(foreignId);
      }),
    );
    for (const foreignId of new Set(bodies.map((body) => body.foreign_id))) {
      if (unclaimed.has(foreignId)) continue;
      const upstream = encodeURIComponent(`${account.prefix}${foreignId}`);
      // One held for approval: another owner approves it, declines it, or leaves it waiting. Decided apart from the
      // workload's own draws, and refused by the sandbox for one not held, which goes on as before.
      const owner = Rng.for(this.seed, 'owner', foreignId).weighted({ approve: 6, decline: 2, wait: 1 });
      if (owner === 'wait') continue;
      const decided = await control(account.url, 'POST', `/withdrawals/${upstream}/${owner}`);
      if (owner === 'decline' && decided.status === 200) continue;
      if (rng.chance(0.2)) continue; // left processing at the service
      await control(account.url, 'POST', `/withdrawals/${upstream}/complete`, {
        status: rng.chance(0.85) ? 'confirmed' : 'failed',
      });
      if (rng.chance(0.5))
        await this.api.call('refund-poll', 'GET', `/refunds/${foreignId}`, {
          order,
          refund: foreignId,
          store: store.tokens,
          admin: true,
        });
    }
  }

  /** A claim link whose making's answer was lost, or that was refused: the store reads the refund for it. */
  private async claimUrl(store: SoakStore, order: string, foreignId: string): Promise<string | undefined> {
    const read = await this.api.call('refund-poll', 'GET', `/refunds/${foreignId}`, {
      order,
      refund: foreignId,
      store: store.tokens,
      admin: true,
    });
    return read.status === 200 && typeof read.body.claim_url === 'string' ? read.body.claim_url : undefined;
  }

  /**
   * A claim link's customer opens the page and gives the address: once, twice at once (a double click, two tabs),
   * or again later, each retried after a lost answer. Or the store cancels the claim first, or as the address comes;
   * or no one does anything, and the link expires in the quiet period. Answers whether an address may have been
   * taken.
   */
  private async customer(store: SoakStore, order: string, foreignId: string, link: string): Promise<boolean> {
    const rng = Rng.for(this.seed, 'customer', foreignId);
    const [refund, token] = new URL(link).hash.slice(1).split('/');
    const customer = { order, refund, claimToken: token };
    const read = () => this.api.call('claim-read', 'GET', `/public/refund-claims/${refund}`, customer);
    // Each submit draws from its own generator, so that two at once stay reproducible from the seed.
    let submits = 0;
    const give = (alongside = false) =>
      this.api.retried(
        Rng.for(this.seed, 'claim-submit', foreignId, submits++),
        'claim',
        'POST',
        `/public/refund-claims/${refund}`,
        {
          ...customer,
          alongside,
          body: { address: ADDRESS },
          killRate: this.killRate,
          attempts: 6,
        },
      );
    const cancel = (alongside = false) =>
      this.api.retried(rng, 'cancel-claim', 'POST', `/refunds/${refund}/cancel-claim`, {
        order,
        refund,
        alongside,
        store: store.tokens,
        admin: true,
        killRate: this.killRate,
        attempts: 6,
      });
    const fate = rng.weighted<ClaimFate>({ once: 4, twice: 2, again: 2, cancel: 2, race: 1, expire: 1 });
    if (fate === 'expire') {
      if (rng.chance(0.5)) await read();
      return false;
    }
    await read();
    switch (fate) {
      case 'once':
        await give();
        break;
      case 'twice':
        await Promise.all([give(true), give(true)]);
        break;
      case 'again':
        await give();
        await sleep(rng.int(0, 100));
        await give();
        break;
      case 'cancel':
        await cancel();
        // The customer comes too late.
        if (rng.chance(0.5)) await give();
        break;
      case 'race':
        await Promise.all([cancel(true), give(true)]);
        break;
    }
    // The page then shows the refund's progress.
    await read();
    return fate !== 'cancel';
  }

  private async resend(rng: Rng, store: SoakStore, order: string): Promise<void> {
    const events = this.shop.deliveries.filter((delivery) => delivery.subject === order);
    if (events.length === 0) return;
    const { eventId } = rng.pick(events);
    await this.api.call('resend', 'POST', `/webhooks/deliveries/${eventId}/resend`, {
      order,
      store: store.tokens,
      admin: true,
    });
  }
}
