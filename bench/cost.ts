import type { InvoiceRecord } from '../domain/model';
import { nextSweepAt } from '../domain/reconcile';
import { resolveSettings } from '../lib/settings';
import { sweepTiming } from '../runtime/timing';
import { CREATED_INDEX, OPEN_ITEMS_INDEX } from '../store/schema';
import { figure, type Figure } from './figures';
import type { CallCost } from './lifecycle';
import { ORDER, PRICES } from './prices';
import type { SweepCosts } from './sweep';
import type { WebhookCosts } from './webhooks';

export interface CostInputs {
  checkout: CallCost;
  byHandCheckout: CallCost;
  peerCheckout: CallCost;
  poll: CallCost;
  byHandPoll: CallCost;
  callback: CallCost;
  snapshot: CallCost;
  sweep: SweepCosts;
  /** With webhooks on; `checkout` and `callback` above are with them off. */
  webhook: WebhookCosts;
  /** An open invoice as the checkout leaves it, for the sweep's schedule. */
  openInvoice: InvoiceRecord;
  /** A cold checkout: init, and the secrets its first call fetches. */
  cold: { initMs: number; secretsCalls: number };
}

/** One line of the cost table: what a component costs per order, and for a million orders. */
export interface CostLine {
  component: string;
  /** Invocations per order. */
  perOrder: number;
  readUnits: number;
  writeUnits: number;
  lambdaMs: number;
  /** USD per `ORDER.orders` orders. */
  lambda: number;
  apiGateway: number;
  dynamodb: number;
  secretsManager: number;
  total: number;
  /** The least read and write units per invocation that the guarantees need. */
  leastReadUnits: number;
  leastWriteUnits: number;
  /** The total with those. */
  minimum: number;
  note: string;
}

const MONTH_MINUTES = 30 * 24 * 60;

/** Runs a month of `rate(N unit)`; a cron expression is taken as hourly. */
function runsPerMonth(rate: string): number {
  const match = /^rate\((\d+) (minute|hour|day)s?\)$/.exec(rate);
  if (!match) return MONTH_MINUTES / 60;
  const minutes =
    Number(match[1]) * { minute: 1, hour: 60, day: 1440 }[match[2] as 'minute' | 'hour' | 'day'];
  return MONTH_MINUTES / minutes;
}

/** How often the sweep looks at an order the customer pays `ORDER.minutesToPay` after checkout. */
export function sweepLooksPerOrder(open: InvoiceRecord): number {
  const paidAt = open.createdAt + ORDER.minutesToPay * 60_000;
  let record = { ...open, sweptAt: undefined as number | undefined };
  let looks = 0;
  for (let due = nextSweepAt(record, sweepTiming); due < paidAt && looks < 1000; looks++) {
    record = { ...record, sweptAt: due };
    due = nextSweepAt(record, sweepTiming);
  }
  return looks;
}

interface Usage {
  component: string;
  perOrder: number;
  /** Per invocation. */
  cost: Pick<CallCost, 'units' | 'dynamoCalls' | 'upstreamCalls' | 'ms'>;
  /** The least capacity per invocation: [read units, write units including the index's]. */
  least: [number, number];
  leastMs?: number;
  /** Calls per invocation to the shop's webhook endpoint. */
  endpointCalls?: number;
  viaApi: boolean;
  note: string;
}

/** A count per order, for all the orders. */
const million = (count: number) => count * ORDER.orders;

/** USD for `ORDER.orders` orders of one usage, and the billed ms of one invocation (loopback plus the network). */
function price(usage: Usage, readUnits: number, writeUnits: number, ms: number) {
  const n = usage.perOrder;
  const billedMs = Math.ceil(
    ms +
      usage.cost.dynamoCalls * ORDER.remoteLatencyMs.dynamodb +
      usage.cost.upstreamCalls * ORDER.remoteLatencyMs.service +
      (usage.endpointCalls ?? 0) * ORDER.remoteLatencyMs.endpoint,
  );
  const gbSeconds = (n * billedMs * ORDER.memoryMb) / 1024 / 1000;
  return {
    billedMs,
    lambda:
      million(gbSeconds) * PRICES.lambda.perGbSecond + (million(n) * PRICES.lambda.perMillionRequests) / 1e6,
    apiGateway: usage.viaApi ? (million(n) * PRICES.apiGateway.perMillionRequests) / 1e6 : 0,
    dynamodb:
      (million(n * readUnits) * PRICES.dynamodb.perMillionReadUnits +
        million(n * writeUnits) * PRICES.dynamodb.perMillionWriteUnits) /
      1e6,
  };
}

/**
 * The dispatcher's runs an order (one per write of the record that leaves events waiting, as the table's stream
 * wakes it at a shop's pace; a sweep's mark leaves none), and what webhooks add to the status writes: the event in
 * the record's outbox until it is drained, and its `deliveries-due` key.
 */
function webhookUsage(inputs: CostInputs): Usage {
  const { webhook } = inputs;
  const { runs } = webhook;
  const perRun = (value: number) => value / runs;
  // Beside the same calls with webhooks off: a checkout, and the order's callbacks.
  const added = (key: 'readUnits' | 'writeUnits' | 'indexWriteUnits') =>
    webhook.checkout[key] -
    inputs.checkout.units[key] +
    ORDER.callbacksPerOrder * (webhook.callback[key] - inputs.callback.units[key]);
  const dispatched = (key: 'readUnits' | 'writeUnits' | 'indexWriteUnits') => webhook.dispatcher.units[key];
  const total = (key: 'readUnits' | 'writeUnits' | 'indexWriteUnits') => perRun(dispatched(key) + added(key));
  const outboxWrites = added('writeUnits') + added('indexWriteUnits');
  return {
    component: 'webhook',
    perOrder: runs,
    cost: {
      units: {
        readUnits: total('readUnits'),
        writeUnits: total('writeUnits'),
        indexWriteUnits: total('indexWriteUnits'),
        largestItem: webhook.dispatcher.units.largestItem,
      },
      dynamoCalls: perRun(webhook.dispatcher.dynamoCalls),
      upstreamCalls: 0,
      ms: perRun(webhook.dispatcher.ms),
    },
    endpointCalls: perRun(webhook.events),
    // Per event: the due query and the record's read; the drain, and the due entry put and removed.
    least: [perRun(webhook.events * 1.5), perRun(webhook.events * 3)],
    viaApi: false,
    note:
      `${+webhook.events.toFixed(2)} events an order, ${+webhook.runs.toFixed(2)} runs, ` +
      `${+webhook.deliveringRuns.toFixed(2)} with work; outbox +${outboxWrites.toFixed(2)} WRU an order`,
  };
}

/** The cost of `ORDER.orders` orders, per component, from what the bench counted and timed. */
export function costOfOrders(inputs: CostInputs): {
  lines: CostLine[];
  figures: Figure[];
  peerCheckout: CostLine;
} {
  const settings = resolveSettings({});
  const perOrder = (runs: number) => runs / ORDER.ordersPerMonth;
  const looks = sweepLooksPerOrder(inputs.openInvoice);
  const sweepRuns = perOrder(runsPerMonth(settings.reconcileRate));
  const units = (cost: Usage['cost']) => [
    cost.units.readUnits,
    cost.units.writeUnits + cost.units.indexWriteUnits,
  ];
  const { perLook, emptyRun } = inputs.sweep;
  // A look's reads and writes, and a run's share of the index query, per order.
  const sweepCost: CallCost = {
    units: {
      readUnits: (looks * perLook.readUnits + sweepRuns * emptyRun.readUnits) / (looks + sweepRuns),
      writeUnits: (looks * perLook.writeUnits) / (looks + sweepRuns),
      indexWriteUnits: (looks * perLook.indexWriteUnits) / (looks + sweepRuns),
      largestItem: perLook.largestItem,
    },
    dynamoCalls: (looks * perLook.dynamoCalls + sweepRuns) / (looks + sweepRuns),
    upstreamCalls: (looks * perLook.upstreamCalls) / (looks + sweepRuns),
    ms: (looks * perLook.ms + sweepRuns * emptyRun.ms) / (looks + sweepRuns),
  };
  const usages: Usage[] = [
    {
      component: 'checkout',
      perOrder: 1,
      cost: inputs.checkout,
      // Claim and answer, each under 1 KB as the by-hand item is, and the claim's entry in each index it is listed
      // in (open-items, created), written once.
      least: [0, inputs.byHandCheckout.units.writeUnits + [OPEN_ITEMS_INDEX, CREATED_INDEX].length],
      leastMs: inputs.byHandCheckout.ms,
      viaApi: true,
      note: '',
    },
    {
      component: 'poll',
      perOrder: ORDER.pollsPerOrder,
      cost: inputs.poll,
      least: [inputs.byHandPoll.units.readUnits, 0],
      leastMs: inputs.byHandPoll.ms,
      viaApi: true,
      note: 'consistent GetItem',
    },
    {
      component: 'callbacks',
      perOrder: ORDER.callbacksPerOrder,
      cost: inputs.callback,
      // One conditional write each; the last also drops the index entry.
      least: [0, 1 + 1 / ORDER.callbacksPerOrder],
      viaApi: true,
      note: 'measured on paid orders',
    },
    {
      component: 'reconcile sweep',
      perOrder: looks + sweepRuns,
      cost: sweepCost,
      // Per look: read the record, mark it, move its index entry; per run: the index query.
      least: [
        (looks * 1 + sweepRuns * emptyRun.readUnits) / (looks + sweepRuns),
        (looks * 3) / (looks + sweepRuns),
      ],
      viaApi: false,
      note: `${looks} looks an order (paid after ${ORDER.minutesToPay} min), ${settings.reconcileRate}`,
    },
    {
      component: 'balance snapshots',
      perOrder: perOrder(runsPerMonth(settings.snapshotRate)),
      cost: inputs.snapshot,
      least: [0, 1],
      viaApi: false,
      note: settings.snapshotRate,
    },
    webhookUsage(inputs),
  ];
  const invocations = usages.reduce((sum, usage) => sum + usage.perOrder, 0);
  const coldStarts = invocations * ORDER.coldStartShare;
  const refreshes = perOrder((ORDER.warmEnvironments * MONTH_MINUTES * 60) / ORDER.secretTtlSeconds);

  const line = (usage: Usage): CostLine => {
    const [reads, writes] = units(usage.cost);
    const ours = price(usage, reads, writes, usage.cost.ms);
    const least = price(usage, usage.least[0], usage.least[1], usage.leastMs ?? usage.cost.ms);
    return {
      component: usage.component,
      perOrder: usage.perOrder,
      readUnits: reads,
      writeUnits: writes,
      lambdaMs: ours.billedMs,
      lambda: ours.lambda,
      apiGateway: ours.apiGateway,
      dynamodb: ours.dynamodb,
      secretsManager: 0,
      total: ours.lambda + ours.apiGateway + ours.dynamodb,
      leastReadUnits: usage.least[0],
      leastWriteUnits: usage.least[1],
      minimum: least.lambda + least.apiGateway + least.dynamodb,
      note: usage.note,
    };
  };
  const lines = usages.map(line);
  // New environments: init is billed, and each fetches its secrets; warm ones re-read them every TTL.
  const initGbSeconds = (coldStarts * inputs.cold.initMs * ORDER.memoryMb) / 1024 / 1000;
  const secretsCalls = coldStarts * inputs.cold.secretsCalls + refreshes * inputs.cold.secretsCalls;
  const coldLambda = million(initGbSeconds) * PRICES.lambda.perGbSecond;
  const coldSecrets = (million(secretsCalls) * PRICES.secretsManager.perTenThousandCalls) / 10_000;
  lines.push({
    component: 'cold starts and secret refreshes',
    perOrder: coldStarts,
    readUnits: 0,
    writeUnits: 0,
    lambdaMs: Math.ceil(inputs.cold.initMs),
    lambda: coldLambda,
    apiGateway: 0,
    dynamodb: 0,
    secretsManager: coldSecrets,
    total: coldLambda + coldSecrets,
    leastReadUnits: 0,
    leastWriteUnits: 0,
    minimum: coldLambda + coldSecrets,
    note: `${ORDER.coldStartShare * 100}% of invocations cold, ${inputs.cold.secretsCalls} secret reads each`,
  });
  const sum = (key: keyof CostLine) => lines.reduce((total, entry) => total + (entry[key] as number), 0);
  const peerCheckout = line({ ...usages[0], component: 'checkout, the peer way', cost: inputs.peerCheckout });

  const money = (id: string, label: string, value: number, detail?: string) =>
    figure({
      id,
      label: `cost of ${ORDER.orders.toLocaleString('en')} orders: ${label}`,
      value,
      unit: 'USD',
      detail,
    });
  return {
    lines,
    peerCheckout,
    figures: [
      money(
        'cost.total',
        'total',
        sum('total'),
        `least the guarantees need: ${sum('minimum').toFixed(2)} USD`,
      ),
      money('cost.minimum', 'with the least reads and writes the guarantees need', sum('minimum')),
      money('cost.lambda', 'Lambda', sum('lambda')),
      money('cost.apiGateway', 'API Gateway', sum('apiGateway')),
      money('cost.dynamodb', 'DynamoDB', sum('dynamodb')),
      money('cost.secretsManager', 'Secrets Manager', sum('secretsManager')),
      ...lines.map((entry) =>
        money(
          `cost.component.${entry.component.replace(/\W+/g, '-')}`,
          entry.component,
          entry.total,
          entry.note,
        ),
      ),
      money('cost.peerCheckout', 'checkout, the peer way (for comparison)', peerCheckout.total),
    ],
  };
}

/** The cost table as markdown, for the terminal and the README. */
export function renderCostTable(lines: CostLine[], peerCheckout: CostLine): string {
  const usd = (value: number) => value.toFixed(2);
  const header = [
    'component',
    'per order',
    'RRU',
    'WRU (incl. index)',
    'least RRU, WRU',
    'billed ms',
    'Lambda',
    'API GW',
    'DynamoDB',
    'Secrets',
    'total USD',
    'least USD',
    'note',
  ];
  const row = (entry: CostLine) => [
    entry.component,
    entry.perOrder < 1 && entry.perOrder > 0 ? entry.perOrder.toFixed(4) : String(+entry.perOrder.toFixed(2)),
    entry.readUnits.toFixed(2),
    entry.writeUnits.toFixed(2),
    `${entry.leastReadUnits.toFixed(2)}, ${entry.leastWriteUnits.toFixed(2)}`,
    String(entry.lambdaMs),
    usd(entry.lambda),
    usd(entry.apiGateway),
    usd(entry.dynamodb),
    usd(entry.secretsManager),
    usd(entry.total),
    usd(entry.minimum),
    entry.note,
  ];
  const sum = (key: keyof CostLine) => lines.reduce((total, entry) => total + (entry[key] as number), 0);
  const totals = [
    'total',
    '',
    '',
    '',
    '',
    '',
    ...(['lambda', 'apiGateway', 'dynamodb', 'secretsManager', 'total', 'minimum'] as const).map((key) =>
      usd(sum(key)),
    ),
    '',
  ];
  // The peer's own least is not ours to say: its guarantees differ.
  const peer = row(peerCheckout).map((cell, i) => (header[i].startsWith('least') ? '-' : cell));
  const rows = [header, ...lines.map(row), totals, peer];
  return rows
    .map((cells) => `| ${cells.join(' | ')} |`)
    .join('\n')
    .replace(/\n/, `\n|${header.map(() => ' --- ').join('|')}|\n`);
}
