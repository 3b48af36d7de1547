import { routes } from '../lib/routes';
import { startGateway } from '../local/gateway';
import { readUnits, type CapacityMeter, type Units } from './capacity';
import { checkoutCall, checkoutRequest, idSequence, pollByHandler } from './calls';
import { atMost, exactly, figure, type Figure } from './figures';
import { invocation } from './lambda-events';
import { writes, reads, type PluginUnderTest } from './plugin';

/** What one call of a function costs: capacity units, DynamoDB and upstream calls, and its time here. */
export interface CallCost {
  units: Units;
  dynamoCalls: number;
  upstreamCalls: number;
  ms: number;
}

export interface Lifecycle {
  figures: Figure[];
  /** Per callback delivered. */
  callback: CallCost;
  /** Per scheduled run. */
  snapshot: CallCost;
  /** A typical order's record after payment, in bytes. */
  typicalRecordBytes: number;
}

/** Every optional field at its longest: the largest record a storefront can make. */
function fullOrder(foreignId: string): string {
  return JSON.stringify({
    ...JSON.parse(checkoutRequest(foreignId)),
    title: 'T'.repeat(50),
    description: 'D'.repeat(1000),
    end_user_reference: 'R'.repeat(100),
    email: `${'e'.repeat(242)}@example.com`,
    url_success: `https://shop.example/${'s'.repeat(2027)}`,
    url_failed: `https://shop.example/${'f'.repeat(2027)}`,
  });
}

/**
 * Orders paid in full, one at a time, with the service's callbacks delivered to this process's callbacks handler
 * (through a gateway of its own) and metered; then each order's record is polled and weighed: a typical order, and
 * one with every optional field at its longest. Also one scheduled balance snapshot.
 */
export async function orderLifecycle(
  plugin: PluginUnderTest,
  meter: CapacityMeter,
  orders: number,
): Promise<Lifecycle> {
  const { backends } = plugin;
  const durations: number[] = [];
  const callbacksRoute = routes.find((route) => route.name === 'callbacks')!;
  const gateway = await startGateway([
    {
      route: callbacksRoute,
      handler: async (event, context) => {
        const begin = performance.now();
        const result = await plugin.callbacks(event, context);
        durations.push(performance.now() - begin);
        return result;
      },
    },
  ]);
  const control = sandboxControl(plugin);
  const nextId = idSequence('bench-paid');
  const create = async (body: (foreignId: string) => string) => {
    const foreignId = nextId();
    await invocation(plugin.checkout, 'checkout', checkoutCall(plugin, foreignId, body(foreignId)), 201)();
    return foreignId;
  };
  const pay = async (foreignId: string) => {
    const delivered = durations.length;
    await control(`/invoices/${foreignId}/pay`, { kind: 'full' });
    // Paid in full: one callback at `processing`, one at `confirmed`.
    await until(() => durations.length >= delivered + 2);
  };

  await control('/callbacks', { url: `${gateway.url}/callbacks` });
  const paid: string[] = [];
  const total = { units: { ...NO_UNITS }, dynamoCalls: 0, upstreamCalls: 0, ms: 0 };
  try {
    for (let i = 0; i < orders; i++) {
      const foreignId = await create(checkoutRequest);
      const before = {
        upstream: (await plugin.upstream()).requests,
        dynamo: counts(plugin),
        at: durations.length,
      };
      const units = await meter.during(() => pay(foreignId));
      for (const key of Object.keys(units) as Array<keyof Units>) {
        total.units[key] =
          key === 'largestItem' ? Math.max(total.units[key], units[key]) : total.units[key] + units[key];
      }
      total.dynamoCalls += counts(plugin) - before.dynamo;
      total.upstreamCalls += (await plugin.upstream()).requests - before.upstream;
      total.ms += durations.slice(before.at).reduce((sum, ms) => sum + ms, 0);
      paid.push(foreignId);
    }
    const largest = await create(fullOrder);
    await pay(largest);
    paid.push(largest);
  } finally {
    await control('/callbacks', { url: `${backends.url}/callbacks` });
    await gateway.close();
  }
  const delivered = orders * 2;
  const typical = await meter.during(() => pollByHandler(plugin, paid[0])());
  const full = await meter.during(() => pollByHandler(plugin, paid[paid.length - 1])());

  const snapshotUpstream = (await plugin.upstream()).requests;
  const snapshotCalls = counts(plugin);
  const begin = performance.now();
  const snapshotUnits = await meter.during(() => plugin.snapshotBalances());
  const snapshot: CallCost = {
    units: snapshotUnits,
    dynamoCalls: counts(plugin) - snapshotCalls,
    upstreamCalls: (await plugin.upstream()).requests - snapshotUpstream,
    ms: performance.now() - begin,
  };

  return {
    callback: perCall(total, delivered),
    snapshot,
    typicalRecordBytes: typical.largestItem,
    figures: [
      figure({
        id: 'record.typical.bytes',
        label: 'invoice item, typical order after payment (3 statuses in its history): size',
        value: typical.largestItem,
        unit: 'bytes',
        target: atMost(4096),
      }),
      figure({
        id: 'record.typical.pollReadUnits',
        label: 'invoice item, typical order: read units per poll (consistent GetItem)',
        value: typical.readUnits,
        unit: '',
        target: exactly(1),
      }),
      figure({
        id: 'record.full.bytes',
        label: 'invoice item, every optional field at its longest, after payment: size',
        value: full.largestItem,
        unit: 'bytes',
      }),
      figure({
        id: 'record.full.pollReadUnits',
        label: 'invoice item, every optional field at its longest: read units per poll',
        value: full.readUnits,
        unit: '',
        detail: `${readUnits(full.largestItem)} per 4 KB started`,
      }),
    ],
  };
}

const NO_UNITS: Units = { readUnits: 0, writeUnits: 0, indexWriteUnits: 0, largestItem: 0 };

function perCall(total: CallCost, calls: number): CallCost {
  const units = Object.fromEntries(
    Object.entries(total.units).map(([key, value]) => [key, key === 'largestItem' ? value : value / calls]),
  ) as unknown as Units;
  return {
    units,
    dynamoCalls: total.dynamoCalls / calls,
    upstreamCalls: total.upstreamCalls / calls,
    ms: total.ms / calls,
  };
}

const counts = (plugin: PluginUnderTest) => writes(plugin.commands) + reads(plugin.commands);

/** POSTs to the sandbox's control API, e.g. `/invoices/<id>/pay`. */
export const sandboxControl = (plugin: PluginUnderTest) => (path: string, body: unknown) =>
  fetch(`${plugin.backends.sandbox.url}/_sandbox${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

/** Waits for a callback the sandbox sends on its own; generous, and ends as soon as it has come. */
export async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('The service sent no callback in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}
