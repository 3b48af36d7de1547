// The package is published alone, so it carries its own copy of the API's types; `npm run client` makes both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');

test("the provider's client types are client/api.ts exactly: one openapi.json, one generator, the same flags", () => {
  const read = (path: string) => readFileSync(join(root, path), 'utf8');
  expect(read('packages/medusa-payment/src/api.ts')).toBe(read('client/api.ts'));
  const rootScript = JSON.parse(read('package.json')).scripts.client;
  const packageScript = JSON.parse(read('packages/medusa-payment/package.json')).scripts.client;
  expect(
    packageScript.replace('../../openapi.json', 'openapi.json').replace('src/api.ts', 'client/api.ts'),
  ).toBe(rootScript.split(' && ')[0]);
});
