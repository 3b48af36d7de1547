import type { BuildOptions } from 'esbuild';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { lambdaBuildOptions } from '../lib/bundling';
import { routes, scheduledJobs } from '../lib/routes';
import { bundleFunctions, startLambdaProcess } from '../local/lambda-process';
import { apiEvent } from './lambda-events';
import { checkoutCall, idSequence, pollCall } from './calls';
import { atMost, figure, type Figure } from './figures';
import type { Peer } from './peer';
import type { PluginUnderTest } from './plugin';
import { median } from './stats';

const ROOT = path.join(__dirname, '..');
const POLL = 'get-invoice';

/** What a team gets from NodejsFunction without our SDK trimming: the yardsticks are bundled this way. */
const STANDARD_BUNDLING: BuildOptions = { ...lambdaBuildOptions, mainFields: undefined, alias: undefined };

const kb = (bytes: number) => bytes / 1000;

/** One fresh process: init, and the first invocation when an event is given. */
interface ColdRun {
  initMs: number;
  firstMs?: number;
  secretsCalls?: number;
}

interface Probe {
  name: string;
  file: string;
  env: Record<string, string>;
  /** A fresh event per run (unique foreign_ids): the first invocation is timed too. */
  event?: () => unknown;
}

export interface ColdStartResult {
  figures: Figure[];
  /** Init and first invocation, medians, by probe name. */
  medians: Map<string, { initMs: number; firstMs?: number; secretsCalls?: number }>;
}

/**
 * Bundles every function as the stack does, and beside them the yardsticks: a trivial handler with the DynamoDB
 * client, and the peer checkout, both as a team would bundle them. Each runs in fresh processes with the local
 * stack's environment: module init for all, and for the checkouts and the yardstick also the first invocation
 * (secret fetch, first DynamoDB call, first connection to the service).
 */
export async function coldStart(
  plugin: PluginUnderTest,
  peer: Peer,
  outDir: string,
  runs: { endToEnd: number; initOnly: number },
  pollId: string,
): Promise<ColdStartResult> {
  const names = [...routes.map((route) => route.name), ...scheduledJobs];
  const ours = await bundleFunctions(
    Object.fromEntries(names.map((name) => [name, path.join(ROOT, 'functions', `${name}.ts`)])),
    path.join(outDir, 'functions'),
  );
  const yardsticks = {
    baseline: path.join(__dirname, 'baseline-handler.ts'),
    peer: path.join(__dirname, 'peer', 'checkout.ts'),
  };
  const standard = await bundleFunctions(yardsticks, path.join(outDir, 'standard'), STANDARD_BUNDLING);
  const trimmed = await bundleFunctions(yardsticks, path.join(outDir, 'trimmed'));

  // What lib/plugin-function.ts adds to every function's environment, and the function name Lambda adds.
  const env = {
    ...plugin.backends.env,
    ...peer.env,
    NODE_OPTIONS: '--enable-source-maps',
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    AWS_LAMBDA_FUNCTION_NAME: 'payments-plugin-bench',
  };
  const ourId = idSequence('bench-cold');
  const peerId = idSequence('bench-cold-peer');
  const { NODE_OPTIONS: _, ...withoutSourceMaps } = env;
  const endToEnd: Probe[] = [
    { name: 'checkout', file: ours.checkout, env, event: () => apiEvent(checkoutCall(plugin, ourId())) },
    { name: 'peer', file: standard.peer, env, event: () => apiEvent(checkoutCall(plugin, peerId())) },
    { name: 'baseline', file: standard.baseline, env, event: () => ({}) },
    { name: POLL, file: ours[POLL], env, event: () => apiEvent(pollCall(plugin, pollId)) },
  ];
  const initOnly: Probe[] = [
    ...names
      .filter((name) => name !== 'checkout' && name !== POLL)
      .map((name) => ({ name, file: ours[name], env })),
    { name: 'baseline, trimmed', file: trimmed.baseline, env },
    { name: 'peer, trimmed', file: trimmed.peer, env },
    { name: 'baseline without source maps', file: standard.baseline, env: withoutSourceMaps },
  ];
  const medians = new Map([
    ...(await medianRuns(plugin, endToEnd, runs.endToEnd)),
    ...(await medianRuns(plugin, initOnly, runs.initOnly)),
  ]);

  const size = (file: string) => statSync(file).size;
  const init = (name: string) => medians.get(name)!.initMs;
  const first = (name: string) => medians.get(name)!.firstMs!;
  const total = (name: string) => init(name) + first(name);
  const baseSize = size(standard.baseline);
  const baseInit = init('baseline');
  return {
    medians,
    figures: [
      figure({
        id: 'cold.baseline.size',
        label: 'cold start yardstick (trivial handler + DynamoDB client, untrimmed): bundle size',
        value: kb(baseSize),
        unit: 'KB',
        detail: `${kb(size(trimmed.baseline)).toFixed(1)} KB with our trimming`,
      }),
      figure({
        id: 'cold.baseline.init',
        label: 'cold start yardstick: module init, median',
        value: baseInit,
        unit: 'ms',
        detail: `${runs.endToEnd} fresh processes; ${init('baseline, trimmed').toFixed(1)} ms with our trimming`,
      }),
      figure({
        id: 'cold.baseline.initWithoutSourceMaps',
        label: 'cold start yardstick: module init without NODE_OPTIONS=--enable-source-maps',
        value: init('baseline without source maps'),
        unit: 'ms',
      }),
      ...names.flatMap((name) => [
        figure({
          id: `cold.${name}.size`,
          label: `cold start ${name}: bundle size / yardstick`,
          value: size(ours[name]) / baseSize,
          unit: 'x',
          detail: `${kb(size(ours[name])).toFixed(1)} KB`,
          target: name === POLL ? atMost(1.1) : undefined,
        }),
        figure({
          id: `cold.${name}.init`,
          label: `cold start ${name}: module init / yardstick`,
          value: init(name) / baseInit,
          unit: 'x',
          detail: `${init(name).toFixed(1)} ms`,
          target: atMost(name === POLL ? 1.1 : 1.3),
        }),
      ]),
      figure({
        id: 'cold.checkout.endToEnd',
        label:
          'cold checkout end to end (init + first call: secret, DynamoDB, service) / yardstick init + GetItem',
        value: total('checkout') / total('baseline'),
        unit: 'x',
        detail:
          `${init('checkout').toFixed(1)} + ${first('checkout').toFixed(1)} ms against ` +
          `${baseInit.toFixed(1)} + ${first('baseline').toFixed(1)} ms`,
        target: atMost(1.3),
      }),
      figure({
        id: 'cold.poll.endToEnd',
        label: 'cold poll end to end (init + first call: secret, GetItem) / yardstick init + GetItem',
        value: total(POLL) / total('baseline'),
        unit: 'x',
        detail: `${init(POLL).toFixed(1)} + ${first(POLL).toFixed(1)} ms`,
      }),
      ...peerColdFigures(size(ours.checkout), size(standard.peer), size(trimmed.peer), init, first),
    ],
  };
}

function peerColdFigures(
  ourSize: number,
  peerSize: number,
  peerTrimmedSize: number,
  init: (name: string) => number,
  first: (name: string) => number,
): Figure[] {
  return [
    figure({
      id: 'peer.cold.size',
      label: 'peer comparison, bundle size: ours / peer',
      value: ourSize / peerSize,
      unit: 'x',
      detail: `${kb(ourSize).toFixed(1)} / ${kb(peerSize).toFixed(1)} KB; peer with our trimming ${kb(peerTrimmedSize).toFixed(1)} KB`,
    }),
    figure({
      id: 'peer.cold.init',
      label: 'peer comparison, cold init: ours / peer',
      value: init('checkout') / init('peer'),
      unit: 'x',
      detail:
        `${init('checkout').toFixed(1)} / ${init('peer').toFixed(1)} ms; ` +
        `peer with our trimming ${init('peer, trimmed').toFixed(1)} ms`,
      target: atMost(0.7),
    }),
    figure({
      id: 'peer.cold.firstInvocation',
      label: 'peer comparison, first invocation: ours / peer',
      value: first('checkout') / first('peer'),
      unit: 'x',
      detail: `${first('checkout').toFixed(1)} / ${first('peer').toFixed(1)} ms`,
    }),
  ];
}

/** Medians over `runs` fresh processes per probe, taking turns so that load drift hits all alike. */
async function medianRuns(plugin: PluginUnderTest, probes: Probe[], runs: number) {
  const samples = new Map(probes.map((probe) => [probe.name, [] as ColdRun[]]));
  for (let run = 0; run < runs; run++) {
    for (const probe of probes) samples.get(probe.name)!.push(await coldRun(plugin, probe));
  }
  const middle = (values: Array<number | undefined>) =>
    values[0] === undefined ? undefined : median(values as number[]);
  return [...samples].map(
    ([name, list]) =>
      [
        name,
        {
          initMs: median(list.map((run) => run.initMs)),
          firstMs: middle(list.map((run) => run.firstMs)),
          secretsCalls: middle(list.map((run) => run.secretsCalls)),
        },
      ] as const,
  );
}

async function coldRun(plugin: PluginUnderTest, probe: Probe): Promise<ColdRun> {
  const fresh = await startLambdaProcess(probe.file, probe.env);
  try {
    if (!probe.event) return { initMs: fresh.initMs };
    const before = await plugin.backends.counts();
    const { result, ms } = await fresh.invoke(probe.event(), probe.name);
    const status = (result as { statusCode?: number }).statusCode ?? 200;
    if (status >= 300)
      throw new Error(`${probe.name}'s first call answered ${status}: ${JSON.stringify(result)}`);
    const after = await plugin.backends.counts();
    return { initMs: fresh.initMs, firstMs: ms, secretsCalls: after.secretsCalls - before.secretsCalls };
  } finally {
    await fresh.close();
  }
}
