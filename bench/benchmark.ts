import { mkdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { BaselineIo } from './baseline-io';
import { checkoutByHandler, createBodyTemplate, idSequence, pollByHandler } from './calls';
import { coldStart } from './cold-start';
import type { Figure } from './figures';
import { gatewayLoad } from './gateway-load';
import { ioCounts } from './io-counts';
import { SIZES, type Mode } from './modes';
import { checkoutOverhead, pollOverhead } from './overhead';
import { startPlugin, type PluginUnderTest } from './plugin';
import { timeCalls } from './timing';

export interface BenchResults {
  mode: Mode;
  startedAt: string;
  seconds: number;
  machine: { node: string; cpus: number; loadAverageAtStart: number[] };
  figures: Figure[];
}

export interface BenchOptions {
  mode: Mode;
  /** Where results.json goes. */
  outFile: string;
  /** Scratch space for bundles. */
  scratchDir: string;
  progress?: (line: string) => void;
}

/** Runs every benchmark of issue 5 and writes the figures, each beside its target, to `outFile`. */
export async function runBenchmark(options: BenchOptions): Promise<BenchResults> {
  const sizes = SIZES[options.mode];
  const progress = options.progress ?? (() => undefined);
  const started = new Date();
  const loadAverageAtStart = os.loadavg();
  const figures: Figure[] = [];

  progress('starting the local stack');
  const plugin = await startPlugin();
  let baseline: BaselineIo | undefined;
  try {
    // The invoice every poll reads; its create request is also the template of the by-hand checkout.
    const pollId = 'bench-polled';
    await checkoutByHandler(plugin, pollId)();
    const { sandbox } = plugin.stack;
    baseline = new BaselineIo({
      tableName: plugin.stack.tableName,
      service: { url: sandbox!.url, apiKey: sandbox!.apiKey, secretKey: sandbox!.secretKey },
      createBody: await createBodyTemplate(plugin, pollId),
    });
    progress('warming up');
    await warmUp(plugin, baseline, pollId, sizes.warmup, sizes.concurrency);

    progress('I/O counts');
    figures.push(...(await ioCounts(plugin, baseline, sizes.ioInvocations, pollId)));
    progress('checkout overhead');
    figures.push(...(await checkoutOverhead(plugin, baseline, sizes)));
    progress('poll overhead');
    figures.push(...(await pollOverhead(plugin, baseline, sizes, pollId)));
    progress('local gateway under load');
    figures.push(...(await gatewayLoad(plugin, pollId, sizes.gatewayRequests, sizes.gatewayConnections)));
  } finally {
    await baseline?.close();
    await plugin.stack.close();
  }
  progress('cold start');
  figures.push(...(await coldStart(path.join(options.scratchDir, 'bundles'), sizes.initRuns)));

  const results: BenchResults = {
    mode: options.mode,
    startedAt: started.toISOString(),
    seconds: Math.round((Date.now() - started.getTime()) / 1000),
    machine: { node: process.version, cpus: os.cpus().length, loadAverageAtStart },
    figures,
  };
  mkdirSync(path.dirname(options.outFile), { recursive: true });
  writeFileSync(options.outFile, `${JSON.stringify(results, null, 2)}\n`);
  return results;
}

/** Fetches the secret, opens the connection pools and warms the code paths, so that what follows is warm. */
async function warmUp(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  pollId: string,
  count: number,
  concurrency: number,
): Promise<void> {
  const handlerId = idSequence('bench-warmup');
  const baselineId = idSequence('bench-warmup-baseline');
  await timeCalls(() => checkoutByHandler(plugin, handlerId()), count, concurrency);
  await timeCalls(
    () => {
      const foreignId = baselineId();
      return () => baseline.checkout(foreignId);
    },
    count,
    concurrency,
  );
  await timeCalls(() => pollByHandler(plugin, pollId), count, concurrency);
  await timeCalls(() => () => baseline.poll(pollId), count, concurrency);
}
