// docs/internals.md lists every setting a function reads with numberEnv, and its default: held to the code here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { settingReads } from './function-settings';

const root = join(__dirname, '..', '..');

/** Every `numberEnv('NAME', default)` in the code a function bundles, as name -> default. */
function settingsInCode(): Map<string, string> {
  const settings = new Map<string, string>();
  for (const { name, default: given } of settingReads().reads) {
    expect({ name, default: settings.get(name) ?? given }).toEqual({ name, default: given });
    settings.set(name, given);
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

test('every numberEnv call names its setting and its default in the call itself, so that the table above sees it', () => {
  const { reads, calls } = settingReads();
  expect(reads).toHaveLength(calls);
});

test("each function setting's default is written in one file, which every reader of the setting imports", () => {
  const files = new Map<string, Set<string>>();
  for (const { name, file } of settingReads().reads)
    files.set(name, (files.get(name) ?? new Set()).add(file));
  for (const [name, found] of files)
    expect({ name, files: [...found] }).toEqual({ name, files: [[...found][0]] });
});
