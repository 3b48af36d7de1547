// Bundles every function for real, once: proves each entry builds with the stack's esbuild settings, starts with
// the template's environment, and, run with the template's timeout, answers every route in time under a hung service.
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { MAX_STORE_REQUESTS_PER_SECOND } from '../../domain/request-limits';
import { routes, scheduledJobs } from '../../lib/routes';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
import { SECRET_ENV } from '../../secrets/fields';
import { startGateway } from '../../local/gateway';
import type { Listening } from '../../local/listen';
import {
  environmentFor,
  startBundledFunction,
  synthesizeApp,
  type BundledFunction,
  type SynthesizedApp,
} from '../support/bundled-function';
import {
  callEveryRoute,
  createOpenRecords,
  expectAnsweredInTime,
  hangEveryOperation,
} from '../support/hung-service';
import { startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';

// The SDK tries this inside try/catch, only for SigV4a (multi-region access points), which nothing here uses.
const OPTIONAL = ['@aws-sdk/signature-v4-crt'];

/** The credential chain's other links and their nested clients, the browser user-agent parser, CBOR codecs. */
const NEVER_RUN = [
  'credential-provider-ini',
  'credential-provider-imds',
  'nested-clients',
  'token-providers',
  'bowser',
  '/cbor/',
];

const outdir = mkdtempSync(path.join(tmpdir(), 'cdk-bundling-'));
let app: SynthesizedApp;

beforeAll(() => {
  app = synthesizeApp(outdir);
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

test('every function bundles minified with a source map, needs no module but Node built-ins, and starts with the template environment', () => {
  const functions = Object.entries(app.resources).filter(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  );
  // Every route's and job's, and the custom resource's that fills the tokens.
  expect(functions).toHaveLength(routes.length + scheduledJobs.length + 1);

  for (const [logicalId, fn] of functions) {
    const bundle = app.bundleOf(fn);
    const code = readFileSync(bundle, 'utf8');
    expect(existsSync(`${bundle}.map`)).toBe(true);
    expect(code).toContain('//# sourceMappingURL=index.js.map');
    // Minified: long lines, not the source's layout.
    expect(code.length / code.split('\n').length).toBeGreaterThan(500);
    const required = [...code.matchAll(/require\("([^"]+)"\)/g)].map((match) => match[1]);
    const external = required.filter(
      (name) => !name.startsWith('node:') && !builtinModules.includes(name) && !OPTIONAL.includes(name),
    );
    expect({ logicalId, external }).toEqual({ logicalId, external: [] });
    // Trimmed (lib/bundling.ts): none of the SDK code that Lambda never runs is bundled.
    const { sources } = JSON.parse(readFileSync(`${bundle}.map`, 'utf8')) as { sources: string[] };
    const neverRun = sources.filter((source) => NEVER_RUN.some((part) => source.includes(part)));
    expect({ logicalId, neverRun }).toEqual({ logicalId, neverRun: [] });

    // Its init needs nothing the template does not give it: a token-only function, say, does not need the id of
    // the processing keys secret. References to other resources stand in as their logical ids.
    const environment = Object.fromEntries(
      Object.entries(fn.Properties.Environment?.Variables ?? {}).map(([name, value]) => [
        name,
        typeof value === 'string' ? value : JSON.stringify(value),
      ]),
    );
    const init = spawnSync(process.execPath, ['-e', 'require(process.argv[1])', bundle], {
      env: { PATH: process.env.PATH, AWS_REGION: 'eu-central-1', ...environment },
      encoding: 'utf8',
    });
    expect({ logicalId, status: init.status, stderr: init.stderr }).toEqual({
      logicalId,
      status: 0,
      stderr: '',
    });
  }
}, 180_000);

test('the poll and the document bundle no validation library; the routes that read a body or a query do', () => {
  // Every valibot schema carries its `~run` method; a bundle holds the name only with the library.
  const withValibot = app.functions
    .filter((fn) => readFileSync(fn.bundle, 'utf8').includes('~run'))
    .map((fn) => fn.name)
    .sort();
  expect(withValibot).toEqual(expect.arrayContaining(['checkout', 'create-refund', 'balance-history']));
  expect(withValibot).not.toContain('get-invoice');
  expect(withValibot).not.toContain('openapi');
});

describe('the bundles with the default timeouts, under a service that never answers', () => {
  let output: CapturedOutput;
  let harness: Harness;
  let bundled: BundledFunction[] = [];
  let gateway: Listening;

  beforeAll(async () => {
    output = captureOutput(); // the in-process stack logs too; keep the run quiet
    harness = await startHarness(); // dynalite, the Secrets Manager endpoint and the sandbox the bundles talk to
    await createOpenRecords(harness);
    const { stack } = harness;
    const local = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: stack.dynamo.url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: stack.secrets.url,
      TABLE_NAME: stack.tableName,
      PROCESSING_BASE_URL: stack.sandbox!.url,
      CLAIM_PAGE_URL: `${stack.url}/claim/`,
      // The harness's own functions count the same store's requests in the same table, at the harness's limit.
      STORE_REQUESTS_PER_SECOND: String(MAX_STORE_REQUESTS_PER_SECOND),
    };
    bundled = await Promise.all(
      routes.map((route) => {
        const fn = app.functions.find((candidate) => candidate.name === route.name)!;
        // Only the secrets the template names for this function, pointed at the local ones.
        const secrets = Object.fromEntries(
          (Object.keys(SECRET_ENV) as Array<keyof typeof SECRET_ENV>)
            .filter((name) => SECRET_ENV[name] in fn.environment)
            .map((name) => [SECRET_ENV[name], stack.secretIds[name]]),
        );
        // Lambda names the function, so each bundle holds one invocation's context at a time, as deployed.
        const lambda = { AWS_LAMBDA_FUNCTION_NAME: fn.name };
        return startBundledFunction(fn, environmentFor(fn, { ...local, ...secrets, ...lambda }));
      }),
    );
    gateway = await startGateway(
      routes.map((route, i) => ({ route, handler: (event) => bundled[i].invoke(event).answer })),
    );
    await hangEveryOperation(harness);
  }, 60_000);

  afterAll(async () => {
    await gateway?.close();
    await Promise.all(bundled.map((fn) => fn.close()));
    await harness?.close();
    output.restore();
  });

  test("every route answers our JSON within the template's timeout, and each timeout is counted", async () => {
    const results = await callEveryRoute(harness, harness.apiAt(gateway.url));

    expectAnsweredInTime(results);
    const counted =
      bundled
        .map((fn) => fn.output())
        .join('\n')
        .match(/"UpstreamServerErrors":1/g) ?? [];
    expect(counted).toHaveLength(results.filter(({ call }) => call.callsService).length);
    // Minified bundles rename classes: every error must still log its own name.
    const errorTypes = bundled
      .flatMap((fn) => fn.output().match(/"errorType":"[^"]*"/g) ?? [])
      .map((field) => field.slice('"errorType":"'.length, -1));
    expect(errorTypes.length).toBeGreaterThan(0);
    expect(errorTypes.filter((type) => !/^[A-Z][A-Za-z]*Error$/.test(type))).toEqual([]);
  }, 60_000);
});
