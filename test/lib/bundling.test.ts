// Bundles every function for real, once: proves each entry builds with the stack's esbuild settings, and that the
// bundles, run with the template's environment and timeout, answer every route in time under a hung service.
import { builtinModules } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { routes } from '../../lib/routes';
import { LOCAL_CREDENTIALS } from '../../local/dynamodb';
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

const outdir = mkdtempSync(path.join(tmpdir(), 'cdk-bundling-'));
let app: SynthesizedApp;

beforeAll(() => {
  app = synthesizeApp(outdir);
}, 120_000);

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

test('every function bundles minified with a source map and needs no module at run time but Node built-ins', () => {
  const functions = Object.entries(app.resources).filter(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  );
  expect(functions).toHaveLength(14);

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
  }
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
      SECRET_ID: stack.secretId,
      PROCESSING_BASE_URL: stack.sandbox!.url,
    };
    bundled = await Promise.all(
      routes.map((route) => {
        const fn = app.functions.find((candidate) => candidate.name === route.name)!;
        return startBundledFunction(fn, environmentFor(fn, local));
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
  }, 60_000);
});
