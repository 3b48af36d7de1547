// Bundles every function for real, once: proves each entry builds with the stack's esbuild settings.
import { spawnSync } from 'node:child_process';
import { builtinModules } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { definePaymentsPluginApp } from '../../lib/define-app';

interface LambdaResource {
  Type: string;
  Properties: { Code: { S3Key: string }; Environment?: { Variables: Record<string, unknown> } };
}

// The SDK tries this inside try/catch, only for SigV4a (multi-region access points), which nothing here uses.
const OPTIONAL = ['@aws-sdk/signature-v4-crt'];

const outdir = mkdtempSync(path.join(tmpdir(), 'cdk-bundling-'));

afterAll(() => rmSync(outdir, { recursive: true, force: true }));

// Bundling and starting 14 functions takes about 20 s on an idle machine; a busy CI may need several times that.
test('every function bundles minified with a source map, needs no module but Node built-ins, and starts with the template environment', () => {
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
