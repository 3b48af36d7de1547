import { build, type BuildOptions } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import * as path from 'node:path';
import { routes, scheduledJobs } from '../lib/routes';
import { atMost, figure, type Figure } from './figures';
import { median } from './stats';

const ROOT = path.join(__dirname, '..');
const BASELINE = 'baseline';
const POLL = 'get-invoice';

/** What lib/plugin-function.ts asks of NodejsFunction, which hands it on to esbuild. */
const LAMBDA_BUNDLING: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  sourcemap: true,
  external: [],
  logLevel: 'error',
};

/** What a deployed function starts with: the stack's environment plus lib/plugin-function.ts's own. */
const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  TABLE_NAME: 'payments-plugin',
  PROCESSING_KEYS_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:payments-plugin-keys',
  TOKENS_SECRET_ID: 'arn:aws:secretsmanager:us-east-1:000000000000:secret:payments-plugin-tokens',
  PROCESSING_BASE_URL: 'https://processing.example',
  NODE_OPTIONS: '--enable-source-maps',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

/** Run in a fresh process: the time to load and initialise the bundle, as Lambda's init does. */
const PROBE =
  'const t=process.hrtime.bigint();require(process.argv[1]);' +
  'process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6),()=>process.exit(0))';

interface Probe {
  name: string;
  file: string;
  env: Record<string, string>;
}

function initMs(probe: Probe): number {
  const out = execFileSync(process.execPath, ['-e', PROBE, probe.file], {
    env: { PATH: process.env.PATH ?? '', ...probe.env },
    encoding: 'utf8',
  });
  const ms = Number(out);
  if (!Number.isFinite(ms)) throw new Error(`${probe.name} printed ${JSON.stringify(out)}`);
  return ms;
}

/** Median init of each probe over `runs` fresh processes, taking turns so that load drift hits all alike. */
function medianInits(probes: Probe[], runs: number): Map<string, number> {
  const samples = new Map(probes.map((probe) => [probe.name, [] as number[]]));
  for (let run = 0; run < runs; run++) {
    for (const probe of probes) samples.get(probe.name)!.push(initMs(probe));
  }
  return new Map([...samples].map(([name, values]) => [name, median(values)]));
}

const kb = (bytes: number) => bytes / 1000;

/**
 * Bundles every function as the CDK stack does, beside a bundle of a trivial handler and the DynamoDB client,
 * and reports each bundle's size and module init time against that baseline's.
 */
export async function coldStart(outDir: string, runs: number): Promise<Figure[]> {
  const names = [...routes.map((route) => route.name), ...scheduledJobs];
  const entryPoints: Record<string, string> = {
    [BASELINE]: path.join(__dirname, 'baseline-handler.ts'),
    ...Object.fromEntries(names.map((name) => [name, path.join(ROOT, 'functions', `${name}.ts`)])),
  };
  await build({ ...LAMBDA_BUNDLING, entryPoints, outdir: outDir, absWorkingDir: ROOT });
  const file = (name: string) => path.join(outDir, `${name}.js`);
  const size = (name: string) => statSync(file(name)).size;

  const { NODE_OPTIONS: _, ...withoutSourceMaps } = LAMBDA_ENV;
  const probes: Probe[] = [
    ...Object.keys(entryPoints).map((name) => ({ name, file: file(name), env: LAMBDA_ENV })),
    { name: 'baseline without source maps', file: file(BASELINE), env: withoutSourceMaps },
  ];
  const init = medianInits(probes, runs);
  const baseInit = init.get(BASELINE)!;
  const baseSize = size(BASELINE);

  return [
    figure({
      id: 'cold.baseline.size',
      label: 'cold start baseline (trivial handler + DynamoDB client): bundle size',
      value: kb(baseSize),
      unit: 'KB',
    }),
    figure({
      id: 'cold.baseline.init',
      label: 'cold start baseline: module init, median',
      value: baseInit,
      unit: 'ms',
      detail: `${runs} fresh processes`,
    }),
    figure({
      id: 'cold.baseline.initWithoutSourceMaps',
      label: 'cold start baseline: module init without NODE_OPTIONS=--enable-source-maps',
      value: init.get('baseline without source maps')!,
      unit: 'ms',
    }),
    ...names.flatMap((name) => [
      figure({
        id: `cold.${name}.size`,
        label: `cold start ${name}: bundle size / baseline`,
        value: size(name) / baseSize,
        unit: 'x',
        detail: `${kb(size(name)).toFixed(1)} KB`,
        target: name === POLL ? atMost(1.1) : undefined,
      }),
      figure({
        id: `cold.${name}.init`,
        label: `cold start ${name}: module init / baseline`,
        value: init.get(name)! / baseInit,
        unit: 'x',
        detail: `${init.get(name)!.toFixed(1)} ms`,
        target: atMost(name === POLL ? 1.1 : 1.3),
      }),
    ]),
  ];
}
