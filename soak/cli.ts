// `npm run soak [-- --seed N --orders N --workers N --concurrency N]`: the randomized soak against the local stack
// (docs/soak.md). Each worker is a process with its own stack, running every n-th order of the same seed.
import { spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type { InvariantResult } from './checker';
import { summary, writeReport } from './report';
import { DEFAULT_CONCURRENCY, runSoak, type SoakFigures } from './run';

const REPORTS = path.join(__dirname, 'reports');
/** What a worker hands back on its last stdout line. */
const RESULT_PREFIX = 'soak-result ';

interface WorkerResult {
  figures: SoakFigures;
  results: InvariantResult[];
  report?: string;
}

/** The functions' own log and metric lines go to a file beside the reports, so that the run's lines stand out. */
function divertFunctionLogs(file: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const out = createWriteStream(file);
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: never[]) =>
      /^\{"(level|_aws)"/.test(String(chunk))
        ? out.write(chunk)
        : write(chunk, ...rest)) as typeof stream.write;
  }
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: 'string' },
      orders: { type: 'string', default: '10000' },
      workers: { type: 'string', default: '2' },
      concurrency: { type: 'string', default: String(DEFAULT_CONCURRENCY) },
      shard: { type: 'string' },
    },
  });
  const seed = values.seed === undefined ? randomInt(1, 2 ** 31) : Number(values.seed);
  const orders = Number(values.orders);
  const workers = Number(values.workers);
  if (![seed, orders, workers].every((n) => Number.isInteger(n) && n > 0)) {
    throw new Error('--seed, --orders and --workers must be whole numbers above 0');
  }
  if (values.shard) return runWorker(seed, orders, values.shard, Number(values.concurrency));

  console.log(
    `soak: seed ${seed}, ${orders} orders in ${workers} workers (replay: npm run soak -- --seed ${seed} --orders ${orders})`,
  );
  const started = performance.now();
  const parts = await Promise.all(
    Array.from({ length: workers }, (_, index) =>
      worker([
        `--seed=${seed}`,
        `--orders=${orders}`,
        `--concurrency=${values.concurrency}`,
        `--shard=${index}/${workers}`,
      ]),
    ),
  );
  const merged = merge(parts, seed, (performance.now() - started) / 1000);
  for (const line of summary(merged)) console.log(line);
  const reports = parts.flatMap((part) => (part.report ? [part.report] : []));
  if (reports.length > 0 || merged.results.some((result) => result.violations.length > 0)) {
    console.log(
      `soak: FAILED; counter-examples in ${reports.map((file) => path.relative(process.cwd(), file)).join(', ')}`,
    );
    process.exitCode = 1;
  }
}

async function runWorker(seed: number, orders: number, shard: string, concurrency: number): Promise<void> {
  const [index, count] = shard.split('/').map(Number);
  divertFunctionLogs(path.join(REPORTS, `functions-${index}.log`));
  const result = await runSoak({
    seed,
    orders,
    shard: { index, count },
    concurrency,
    log: (line) => console.log(`soak ${index}: ${line}`),
  });
  const report = result.passed ? undefined : writeReport(result, REPORTS);
  const handed: WorkerResult = { figures: result.figures, results: result.results, report };
  console.log(`${RESULT_PREFIX}${JSON.stringify(handed)}`);
}

/**
 * A worker allocates short-lived objects fast (every request's buffers, parsed bodies and promises): a larger young
 * generation lets most of them die young, which is cheap, instead of being copied into the old one and marked there.
 */
const WORKER_NODE_OPTIONS = ['--max-semi-space-size=64'];

/** Runs this file again as one worker, passing its progress lines through. */
function worker(args: string[]): Promise<WorkerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [...process.execArgv, ...WORKER_NODE_OPTIONS, __filename, ...args],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let last: WorkerResult | undefined;
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith(RESULT_PREFIX))
          last = JSON.parse(line.slice(RESULT_PREFIX.length)) as WorkerResult;
        else console.log(line);
      }
    });
    child.on('exit', (code) =>
      last ? resolve(last) : reject(new Error(`a soak worker exited (${code}) without its result`)),
    );
  });
}

/** One run's figures and invariants from its workers': counts added, counter-examples put together. */
function merge(parts: WorkerResult[], seed: number, seconds: number) {
  const add = (pick: (figures: SoakFigures) => Record<string, number>) => {
    const total: Record<string, number> = {};
    for (const part of parts) {
      for (const [key, count] of Object.entries(pick(part.figures))) total[key] = (total[key] ?? 0) + count;
    }
    return total;
  };
  const sum = (pick: (figures: SoakFigures) => number) =>
    parts.reduce((total, part) => total + pick(part.figures), 0);
  const figures: SoakFigures = {
    seed,
    orders: sum((f) => f.orders),
    calls: sum((f) => f.calls),
    retries: sum((f) => f.retries),
    faults: {
      service: add((f) => f.faults.service) as SoakFigures['faults']['service'],
      store: add((f) => f.faults.store) as SoakFigures['faults']['store'],
      callbacks: add((f) => f.faults.callbacks) as SoakFigures['faults']['callbacks'],
      kills: add((f) => f.faults.kills),
      shop: add((f) => f.faults.shop) as SoakFigures['faults']['shop'],
      moves: add((f) => f.faults.moves) as SoakFigures['faults']['moves'],
    },
    events: sum((f) => f.events),
    webhookAttempts: sum((f) => f.webhookAttempts),
    outcomes: add((f) => f.outcomes),
    seconds: Math.round(seconds * 10) / 10,
    cpuSeconds: Math.round(sum((f) => f.cpuSeconds) * 10) / 10,
  };
  const results = parts[0].results.map((first, i) => ({
    ...first,
    checked: parts.reduce((total, part) => total + part.results[i].checked, 0),
    violations: parts.flatMap((part) => part.results[i].violations),
  }));
  return { figures, results };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
