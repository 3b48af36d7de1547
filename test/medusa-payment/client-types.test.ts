// The package is published alone, so it carries its own copies of the API's types and of the typed client;
// `npm run client` makes both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

test("the provider's client types are client/api.ts exactly: one openapi.json, one generator, the same flags", () => {
  expect(read('packages/medusa-payment/src/api.ts')).toBe(read('client/api.ts'));
  const rootScript = JSON.parse(read('package.json')).scripts.client;
  const packageScript = JSON.parse(read('packages/medusa-payment/package.json')).scripts.client;
  expect(
    packageScript
      .split(' && ')[0]
      .replace('../../openapi.json', 'openapi.json')
      .replace('src/api.ts', 'client/api.ts'),
  ).toBe(rootScript.split(' && ')[0]);
});

test("the provider's typed client is client/plugin-client.ts exactly, the one the demo store imports", () => {
  expect(read('packages/medusa-payment/src/plugin-client.ts')).toBe(read('client/plugin-client.ts'));
});
