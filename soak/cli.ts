// `npm run soak [-- --seed N --orders N --concurrency N]`: the randomized soak against the local stack (docs/soak.md).
import { randomInt } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { summary, writeReport } from './report';
import { runSoak } from './run';

/** The functions' own log lines go to a file beside the reports, so that the run's lines stand out. */
function divertFunctionLogs(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
      String(chunk).startsWith('{"level"') ? out.write(chunk) : write(chunk, ...rest)) as typeof stream.write;
  }
}

async function main(): Promise<void> {
  divertFunctionLogs(path.join(__dirname, 'reports', 'functions.log'));
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      orders: { type: 'string', default: '10000' },
      concurrency: { type: 'string', default: '16' },
    },
  });
  const seed = values.seed === undefined ? randomInt(1, 2 ** 31) : Number(values.seed);
  const orders = Number(values.orders);
  if (!Number.isInteger(seed) || !Number.isInteger(orders) || orders < 1) {
    throw new Error('--seed and --orders must be whole numbers');
  }
  console.log(
    `soak: seed ${seed}, ${orders} orders (replay: npm run soak -- --seed ${seed} --orders ${orders})`,
  );
  const result = await runSoak({
    seed,
    orders,
    concurrency: Number(values.concurrency),
    log: (line) => console.log(`soak: ${line}`),
  });
  for (const line of summary(result)) console.log(line);
  if (!result.passed) {
    const file = writeReport(result, path.join(__dirname, 'reports'));
    console.log(`soak: FAILED; counter-examples in ${path.relative(process.cwd(), file)}`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
