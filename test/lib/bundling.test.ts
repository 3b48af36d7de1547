// Bundles every function for real, once: proves each entry builds with the stack's esbuild settings.
import { builtinModules } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { definePaymentsPluginApp } from '../../lib/define-app';

interface LambdaResource {
  Type: string;
  Properties: { Code: { S3Key: string } };
}

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

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

test('every function bundles minified with a source map and needs no module at run time but Node built-ins', () => {
  const app = new App({ outdir });
  const stack = definePaymentsPluginApp(app);
  const assembly = app.synth();
  const template = assembly.getStackByName(stack.stackName).template;
  const functions = Object.entries(template.Resources as Record<string, LambdaResource>).filter(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function',
  );
  expect(functions).toHaveLength(14);

  for (const [logicalId, fn] of functions) {
    // The asset's key is its hash, and the cloud assembly keeps it in asset.<hash>.
    const hash = fn.Properties.Code.S3Key.replace(/\.zip$/, '');
    const bundle = path.join(outdir, `asset.${hash}`, 'index.js');
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
  }
});
