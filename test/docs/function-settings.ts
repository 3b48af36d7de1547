// The settings a function reads with numberEnv, found in the code a function bundles: what the docs tests hold the
// guides to.
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

/** One `numberEnv('NAME', default)` in the code. */
export interface SettingRead {
  name: string;
  default: string;
  file: string;
}

/** Every numberEnv call in the code a function bundles, and how many calls there are in all (read or not). */
export function settingReads(): { reads: SettingRead[]; calls: number } {
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
  const reads: SettingRead[] = [];
  let calls = 0;
  for (const file of files) {
    if (file === join('runtime', 'env.ts')) continue;
    const code = readFileSync(join(root, file), 'utf8');
    calls += [...code.matchAll(/\bnumberEnv\(/g)].length;
    for (const [, name, value] of code.matchAll(/numberEnv\(\s*'([A-Z_]+)',\s*([\d_]+)\s*\)/g)) {
      reads.push({ name, default: value.replace(/_/g, ''), file });
    }
  }
  return { reads, calls };
}

/** Each function setting's default, as name -> default (the docs tests check that there is one per name). */
export function functionSettingDefaults(): Map<string, string> {
  return new Map(settingReads().reads.map((read) => [read.name, read.default]));
}
