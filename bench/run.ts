// `npm run bench` (full) or `npm run bench -- --smoke`: prints the table and writes the results file.
import * as path from 'node:path';
import { runBenchmark } from './benchmark';
import { renderTable } from './figures';

async function main(): Promise<void> {
  // The pinned SDK warns that Node 20 support ends; the bench's own clients need not say so.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
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
  const missed = results.figures.filter((f) => f.met === false).length;
  console.log(
    `\n${results.mode} run, ${results.seconds} s, Node ${results.machine.node}, ${results.machine.cpus} CPUs; ` +
      `${missed} target(s) not met. Written to ${path.relative(process.cwd(), outFile)}`,
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
