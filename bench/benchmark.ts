import { mkdirSync, writeFileSync } from 'node:fs';
import type { InvoiceRecord } from '../domain/model';
import * as os from 'node:os';
import * as path from 'node:path';
import { storedData } from '../store/record-item';
import { bareCheckout } from './bare-checkout';
import { barePoll } from './bare-poll';
import { BaselineIo } from './baseline-io';
import { checkoutByHandler, createBodyTemplate, pollByHand, pollByHandler } from './calls';
import { CapacityMeter, type Units } from './capacity';
import { coldStart } from './cold-start';
import { costOfOrders, renderCostTable } from './cost';
import type { Figure } from './figures';
import { widgetSizeFigures } from './widget-size';
import { eligibilityCache } from './eligibility';
import { gatewayLoad } from './gateway-load';
import { ioCounts, type Counts } from './io-counts';
import type { CallCost } from './lifecycle';
import { orderLifecycle } from './lifecycle';
import { SIZES, type Mode, type Sizes } from './modes';
import { checkoutOverhead, peerWarm, pollOverhead } from './overhead';
import { checkoutSegments, pollSegments } from './segments';
import { checkouts } from './checkouts';
import { startPeer, type Peer } from './peer';
import { countCommands, cpuMeter, startPlugin, type PluginUnderTest } from './plugin';
import { withOutputDiscarded, withPeerOutputDiscarded } from './quiet';
import { sweepScaling } from './sweep';
import { warmCalls } from './timing';
import { webhookCosts } from './webhooks';

export interface BenchResults {
  mode: Mode;
  startedAt: string;
  seconds: number;
  machine: { node: string; cpus: number; loadAverageAtStart: number[]; loadAverageAtEnd: number[] };
  figures: Figure[];
  /** The cost of a million orders, per component, as a markdown table. */
  costTable: string;
  /** The heat model's tables (bench/heat.ts), written by `--part heat`. */
  heatTable?: string;
}

export interface BenchOptions {
  mode: Mode;
  /** Where results.json goes. */
  outFile: string;
  /** Scratch space for bundles. */
  scratchDir: string;
  progress?: (line: string) => void;
}

const POLL_ID = 'bench-polled';

/** Runs every benchmark of issues 5 and 13 and writes the figures, each beside its target, to `outFile`. */
export async function runBenchmark(options: BenchOptions): Promise<BenchResults> {
  const sizes = SIZES[options.mode];
  const progress = options.progress ?? (() => undefined);
  const started = new Date();
  const loadAverageAtStart = os.loadavg();
  const figures: Figure[] = [];

  progress('starting the backends in their own process');
  const plugin = await startPlugin();
  let baseline: BaselineIo | undefined;
  const bare = { checkout: bareCheckout(plugin), poll: barePoll(plugin, POLL_ID) };
  const meters: CapacityMeter[] = [];
  const meter = (client: ConstructorParameters<typeof CapacityMeter>[0]) => {
    const created = new CapacityMeter(client);
    meters.push(created);
    return created;
  };
  // Before the handlers' first call: their clients fix each command's middleware at its first send.
  const ourMeter = meter(plugin.dynamo);
  for (const { client } of Object.values(bare)) {
    countCommands(client);
    meter(client);
  }
  let costTable: string;
  try {
    // The handlers' own log lines would bury the table: stdout is discarded while they run.
    costTable = await withOutputDiscarded(async () => {
      // The invoice every poll reads; its create request is also the template of the by-hand checkout.
      await checkoutByHandler(plugin, POLL_ID)();
      baseline = new BaselineIo({
        tableName: plugin.backends.tableName,
        service: plugin.backends.sandbox,
        createBody: await createBodyTemplate(plugin, POLL_ID),
        recordSizes: recordSizes((await plugin.invoices.get(POLL_ID))!),
      });
      const byHandMeter = meter(baseline.client);
      meter(baseline.sdkDefaults);
      const peer = await startPeer(plugin);
      // First, while the only open invoice is the one the polls read: every invoice the later phases create is
      // due a minute after its checkout, and would be due work for the sweep.
      progress('the sweep over a growing number of open records');
      const sweep = await sweepScaling(plugin, ourMeter, POLL_ID, sizes.sweep);
      figures.push(...sweep.figures);
      progress('warming up');
      await warmUp(plugin, baseline, peer, sizes);

      progress('I/O and CPU counts');
      const io = await withPeerOutputDiscarded(() =>
        ioCounts(plugin, baseline!, peer, sizes.ioInvocations, POLL_ID),
      );
      figures.push(...io.figures);
      progress('the eligibility cache');
      figures.push(...(await eligibilityCache(plugin, sizes.eligibilityInvocations)));
      const units = await meteredUnits(
        plugin,
        baseline,
        peer,
        ourMeter,
        byHandMeter,
        meter(peer.dynamo),
        sizes,
      );

      progress('checkout overhead');
      const checkout = await checkoutOverhead(
        checkouts(plugin, baseline, peer, 'bench-overhead'),
        bare.checkout.call,
        sizes,
        cpuMeter(plugin.backends),
      );
      figures.push(...checkout.figures);
      progress("where a checkout's time goes");
      figures.push(
        ...(await checkoutSegments(
          checkouts(plugin, baseline, peer, 'bench-segments'),
          bare.checkout.call,
          sizes.segmentCheckouts,
        )),
      );
      progress('poll overhead');
      const poll = await pollOverhead(
        plugin,
        baseline,
        bare.poll.call,
        sizes,
        POLL_ID,
        cpuMeter(plugin.backends),
      );
      figures.push(...poll.figures);
      progress("where a poll's time goes");
      figures.push(
        ...(await pollSegments(
          () => pollByHandler(plugin, POLL_ID),
          pollByHand(baseline, POLL_ID),
          bare.poll.call,
          sizes.segmentPolls,
        )),
      );
      progress('beside the peer');
      const peerTimes = await peerWarm(checkouts(plugin, baseline, peer, 'bench-vs-peer'), sizes);
      figures.push(...peerTimes.figures);
      progress('local gateway under load');
      figures.push(...(await gatewayLoad(plugin, POLL_ID, sizes.gatewayRequests, sizes.gatewayConnections)));
      progress('paid orders and their callbacks');
      const lifecycle = await orderLifecycle(plugin, ourMeter, sizes.paidOrders);
      figures.push(...lifecycle.figures);
      progress('webhooks: paid orders with the dispatcher, in a process of their own');
      const webhooks = await webhookCosts(sizes.paidOrders, {
        checkout: units.checkout,
        callback: lifecycle.callback.units,
        recordBytes: lifecycle.typicalRecordBytes,
      });
      figures.push(...webhooks.figures);
      progress('cold starts');
      const cold = await coldStart(
        plugin,
        peer,
        path.join(options.scratchDir, 'bundles'),
        sizes.coldRuns,
        POLL_ID,
      );
      figures.push(...cold.figures);

      const callCost = (units: Units, counts: Counts, ms: number): CallCost => ({
        units,
        dynamoCalls: counts.dynamoCalls / 1000,
        upstreamCalls: counts.upstreamCalls / 1000,
        ms,
      });
      const cost = costOfOrders({
        checkout: callCost(units.checkout, io.counts.checkout, checkout.means.subject),
        byHandCheckout: callCost(units.byHandCheckout, io.counts.byHand, checkout.means.baseline),
        peerCheckout: callCost(units.peerCheckout, io.counts.peer, peerTimes.means.baseline),
        poll: callCost(units.poll, io.counts.poll, poll.means.subject),
        byHandPoll: callCost(units.byHandPoll, io.counts.byHandPoll, poll.means.baseline),
        callback: lifecycle.callback,
        snapshot: lifecycle.snapshot,
        sweep: sweep.costs,
        webhook: webhooks.costs,
        openInvoice: (await plugin.invoices.get(POLL_ID))!,
        cold: {
          initMs: cold.medians.get('checkout')!.initMs,
          secretsCalls: cold.medians.get('checkout')!.secretsCalls ?? 0,
        },
      });
      figures.push(...cost.figures);
      figures.push(...(await widgetSizeFigures()));
      return renderCostTable(cost.lines, cost.peerCheckout);
    });
  } finally {
    meters.forEach((meter) => meter.close());
    await baseline?.close();
    bare.checkout.close();
    bare.poll.close();
    await plugin.backends.close();
  }

  const results: BenchResults = {
    mode: options.mode,
    startedAt: started.toISOString(),
    seconds: Math.round((Date.now() - started.getTime()) / 1000),
    machine: {
      node: process.version,
      cpus: os.cpus().length,
      loadAverageAtStart,
      loadAverageAtEnd: os.loadavg(),
    },
    figures,
    costTable,
  };
  mkdirSync(path.dirname(options.outFile), { recursive: true });
  writeFileSync(options.outFile, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

/** What the plugin's claim writes of a record (its data and its request), and its answer's write (the data). */
function recordSizes(sent: InvoiceRecord): { claimed: number; sent: number } {
  const claimed = {
    ...sent,
    phase: 'sending',
    status: null,
    invoice: null,
    history: [],
    clientSecretHash: undefined,
  };
  return {
    claimed: storedData(claimed).length,
    sent: storedData(sent).length,
  };
}

/** Capacity units of one warm call of each kind, metered on sequential calls (the meter reads around writes). */
async function meteredUnits(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  peer: Peer,
  ours: CapacityMeter,
  byHand: CapacityMeter,
  peers: CapacityMeter,
  sizes: (typeof SIZES)[Mode],
) {
  const n = sizes.meteredInvocations;
  const perCall = async (meter: CapacityMeter, call: () => () => Promise<unknown>): Promise<Units> => {
    const units = await meter.during(async () => {
      for (let i = 0; i < n; i++) await call()();
    });
    return {
      ...units,
      readUnits: units.readUnits / n,
      writeUnits: units.writeUnits / n,
      indexWriteUnits: units.indexWriteUnits / n,
    };
  };
  const calls = checkouts(plugin, baseline, peer, 'bench-metered');
  return {
    checkout: await perCall(ours, calls.ours),
    poll: await perCall(ours, () => pollByHandler(plugin, POLL_ID)),
    byHandCheckout: await perCall(byHand, calls.byHand()),
    byHandPoll: await perCall(byHand, pollByHand(baseline, POLL_ID)),
    peerCheckout: await withPeerOutputDiscarded(() => perCall(peers, calls.peer)),
  };
}

/**
 * Fetches the secrets, opens the connection pools and runs every timed call's code. The sides of each targeted
 * ratio and the peer run `settle` calls, by when V8 has compiled most of their code (the bare handlers settle
 * before their own figures, bench/overhead.ts); the others `warmup`.
 */
async function warmUp(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  peer: Peer,
  sizes: Sizes,
): Promise<void> {
  const { warmup, settle, concurrency } = sizes;
  const calls = checkouts(plugin, baseline, peer, 'bench-warmup');
  const poll = () => pollByHandler(plugin, POLL_ID);
  for (const call of [calls.ours, calls.byHand('least'), poll, pollByHand(baseline, POLL_ID)]) {
    await warmCalls(call, settle, concurrency);
  }
  for (const shape of ['sdkDefaults', 'sameItem', 'indexed', 'indexKept'] as const) {
    await warmCalls(calls.byHand(shape), warmup, concurrency);
  }
  await warmCalls(pollByHand(baseline, POLL_ID, 'sdkDefaults'), warmup, concurrency);
  // The peer's figures are set beside ours: it is warmed alike.
  await withPeerOutputDiscarded(() => warmCalls(calls.peer, settle, concurrency));
}
