import * as path from 'node:path';
import { routes, scheduledJobs, type FunctionName } from '../../lib/routes';
import { bundleFunctions, startLambdaProcess, type LambdaProcess } from '../../local/lambda-process';

const ROOT = path.join(__dirname, '..', '..');

/** Every function the stack deploys, by name, with its source entry. */
export const functionEntries = (): Record<FunctionName, string> =>
  Object.fromEntries(
    [...routes.map((route) => route.name), ...scheduledJobs].map((name) => [
      name,
      path.join(ROOT, 'functions', `${name}.ts`),
    ]),
  ) as Record<FunctionName, string>;

/**
 * The functions bundled with the stack's esbuild options (lib/bundling.ts), each started on demand in a fresh
 * process with the environment `env` and the source maps the stack turns on.
 */
export async function bundledFunctions(outDir: string, env: Record<string, string>) {
  const bundles = await bundleFunctions(functionEntries(), outDir);
  return {
    bundles,
    start: (name: FunctionName): Promise<LambdaProcess> =>
      startLambdaProcess(bundles[name], { ...env, NODE_OPTIONS: '--enable-source-maps' }),
  };
}
