// `npm run bench` (full, then the heat part), `npm run bench -- --smoke`, or one part alone
// (`npm run bench -- --part heat`): prints the table and writes the results file.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runBenchmark, type BenchResults } from './benchmark';
import { renderTable } from './figures';
import { writePerformanceDoc } from './performance-doc';
import { billedMsOf, HEAT_SIZES, heatModel } from './heat';
import { withOutputDiscarded } from './quiet';
import { resolveSettings } from '../lib/settings';

/**
 * Parts that run alone, from the results file of the last full run; their figures replace those of the same part in
 * it, the rest is kept.
 */
const PARTS = {
  heat: (previous: BenchResults) => {
    const { openShards, dueShards } = resolveSettings({ stage: 'production', ...PRODUCTION_LEAST });
    return withOutputDiscarded(() =>
      heatModel(HEAT_SIZES, { open: openShards, due: dueShards }, billedMsOf(previous.costTable)),
    );
  },
};

/** Production's required settings, so that the rest are production's defaults. */
const PRODUCTION_LEAST = {
  processingBaseUrl: 'https://api.processing.example',
  alarmEmail: 'ops@shop.example',
  webhookUrl: 'none',
};

async function runPart(name: keyof typeof PARTS, outFile: string): Promise<void> {
  const started = Date.now();
  if (!existsSync(outFile))
    throw new Error(`A part needs ${outFile} from a full run: run npm run bench first`);
  const previous = JSON.parse(readFileSync(outFile, 'utf8')) as BenchResults;
  const { figures, table } = await PARTS[name](previous);
  const kept = previous.figures.filter((f) => !f.id.startsWith(`${name}.`));
  const results = { ...previous, figures: [...kept, ...figures], [`${name}Table`]: table };
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  await writePerformanceDoc(results);
  console.log(renderTable(figures));
  console.log(`\n${table}`);
  const missed = figures.filter((f) => f.met === false).length;
  console.log(
    `\nPart ${name}, ${Math.round((Date.now() - started) / 1000)} s; ${missed} target(s) not met. ` +
      `Written to ${path.relative(process.cwd(), outFile)} and docs/performance.md`,
  );
}

async function main(): Promise<void> {
  // The pinned SDK warns that Node 20 support ends; the bench's own clients need not say so.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  const partAt = process.argv.indexOf('--part');
  if (partAt >= 0) {
    const name = process.argv[partAt + 1];
    if (!(name in PARTS))
      throw new Error(`Unknown part "${name}"; the parts are ${Object.keys(PARTS).join(', ')}`);
    return runPart(name as keyof typeof PARTS, path.join(__dirname, 'results.json'));
  }
  const smoke = process.argv.includes('--smoke');
  const scratchDir = path.join(__dirname, 'out');
  const outFile = smoke ? path.join(scratchDir, 'results.smoke.json') : path.join(__dirname, 'results.json');
  const results = await runBenchmark({
    mode: smoke ? 'smoke' : 'full',
    outFile,
    scratchDir,
    // Each phase with the seconds since the start, so that a slow machine shows where the time goes.
    progress: (line) => console.error(`[bench ${Math.round(performance.now() / 1000)} s] ${line}`),
  });
  console.log(renderTable(results.figures));
  console.log(`\nThe cost of a million orders (bench/prices.ts):\n\n${results.costTable}`);
  if (!smoke) await writePerformanceDoc(results);
  const missed = results.figures.filter((f) => f.met === false).length;
  console.log(
    `\n${results.mode} run, ${results.seconds} s, Node ${results.machine.node}, ${results.machine.cpus} CPUs; ` +
      `${missed} target(s) not met. Written to ${path.relative(process.cwd(), outFile)}` +
      (smoke ? '' : ' and docs/performance.md'),
  );
  // A process of its own: the local stack it starts loads the handlers afresh, which this process has loaded already.
  // That stack drops the Lambda function name this process set, as it runs many invocations at once (local/stack.ts).
  if (!smoke)
    execFileSync(process.execPath, ['--import', 'tsx', __filename, '--part', 'heat'], { stdio: 'inherit' });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
