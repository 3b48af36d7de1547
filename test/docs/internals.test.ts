// docs/internals.md lists every setting a function reads with numberEnv, and its default: held to the code here.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..', '..');
/** The folders a function's bundle may draw on; tests, the bench, the browser apps and generated code are not. */
const NOT_FUNCTION_CODE = new Set([
  'node_modules',
  'test',
  'bench',
  'cdk.out',
  'client',
  'coverage',
  'web',
  'scripts',
]);

/** Every `numberEnv('NAME', default)` in the code a function bundles, as name -> default. */
function settingsInCode(): Map<string, string> {
  const settings = new Map<string, string>();
  const folders = readdirSync(root, { withFileTypes: true })
    .filter(
      (entry) => entry.isDirectory() && !entry.name.startsWith('.') && !NOT_FUNCTION_CODE.has(entry.name),
    )
    .map((entry) => entry.name);
  const files = folders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))
      .map((file) => join(folder, file)),
  );
  for (const file of files) {
    const code = readFileSync(join(root, file), 'utf8');
    for (const [, name, value] of code.matchAll(/numberEnv\(\s*'([A-Z_]+)',\s*([\d_]+)\s*\)/g)) {
      const given = value.replace(/_/g, '');
      expect({ name, default: settings.get(name) ?? given }).toEqual({ name, default: given });
      settings.set(name, given);
    }
  }
  return settings;
}

/** The rows of the table under "## Function settings" in docs/internals.md, as name -> default. */
function settingsInDoc(): Map<string, string> {
  const doc = readFileSync(join(root, 'docs', 'internals.md'), 'utf8');
  const start = doc.indexOf('\n## Function settings\n');
  expect(start).toBeGreaterThan(0);
  const end = doc.indexOf('\n## ', start + 1);
  const rows = doc
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  return new Map(
    rows.map((row) => {
      const [name, value] = row.slice(1, -1).split(' | ');
      return [name.trim().replace(/`/g, ''), value.trim()];
    }),
  );
}

test('docs/internals.md lists every function setting with the default the code gives it', () => {
  const inCode = settingsInCode();
  // The capture works: settings known to exist are found.
  expect(inCode.get('PROCESSING_TIMEOUT_MS')).toBe('10000');
  expect(inCode.get('RECONCILE_BATCH')).toBe('100');
  expect(Object.fromEntries(settingsInDoc())).toEqual(Object.fromEntries(inCode));
});
