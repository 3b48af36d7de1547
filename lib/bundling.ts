// How the functions are bundled beyond esbuild's defaults. The stack passes this to NodejsFunction; the benchmark
// and the tests bundle with the same options through esbuild's API, so that what they run is what deploys.
import * as path from 'node:path';
import type { BuildOptions } from 'esbuild';

const ROOT = path.join(__dirname, '..');

/**
 * ESM builds first. The SDK's CommonJS builds require whole barrels (every protocol codec, CBOR and XML included,
 * and a browser user-agent parser); its ESM builds let esbuild keep only what the clients use.
 */
const MAIN_FIELDS = ['module', 'main'];

/** Packages swapped for stubs, by the stub's path from the project root: each stub says why. */
const STUBS: Record<string, string> = {
  '@aws-sdk/credential-provider-node': 'lib/bundling-stubs/credential-provider-node.ts',
};

/** For NodejsFunction's `bundling`, whose esbuild runs in the project root. */
export const sdkTrimming = {
  mainFields: MAIN_FIELDS,
  esbuildArgs: { '--alias': Object.entries(STUBS).map(([name, stub]) => `${name}=./${stub}`) },
};

/** The whole of what the stack asks of esbuild, for its API: see lib/plugin-function.ts. */
export const lambdaBuildOptions: BuildOptions = {
  bundle: true,
  platform: 'node',
  target: 'node22',
  format: 'cjs',
  minify: true,
  // `keepNames` would define `name` on every closure a call makes (68 a checkout, the SDK's included: about 5% of a
  // warm checkout's CPU); each error class names itself instead (test/lib/error-names.test.ts).
  keepNames: false,
  sourcemap: true,
  external: [],
  mainFields: MAIN_FIELDS,
  alias: Object.fromEntries(Object.entries(STUBS).map(([name, stub]) => [name, path.join(ROOT, stub)])),
  absWorkingDir: ROOT,
  logLevel: 'error',
};
