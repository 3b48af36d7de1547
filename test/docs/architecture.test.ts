// docs/architecture.md tells a new maintainer which files to read: every file and folder it names must exist.
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';

const root = join(__dirname, '..', '..');
const doc = readFileSync(join(root, 'docs', 'architecture.md'), 'utf8');

/** Made by a command, not kept in git: the doc may name them, and .gitignore must list them. */
const GENERATED = ['client/api.ts', 'test-artifacts/'];
const isGenerated = (path: string) => GENERATED.some((generated) => path.startsWith(generated));

/** A path in backticks: no spaces, not a route (`/stores`), and a folder (`store/`) or a file with an extension. */
const PATH = /^[\w@.-]+(\/[\w@.-]+)*\/?$/;
const looksLikePath = (text: string) => PATH.test(text) && (text.includes('/') || /\.[a-z]{2,4}$/.test(text));

/**
 * Every path the doc names in backticks, as a path from the repository's root. A bare file name in the folder
 * table's row (`ports.ts` in the `domain/` row) is in that row's folder, or else at the root; elsewhere, at the root.
 */
function namedPaths(): string[] {
  const paths = new Set<string>();
  for (const line of doc.split('\n')) {
    const folder = /^\| `([\w/-]+\/)` /.exec(line)?.[1];
    for (const [, text] of line.matchAll(/`([^`\n]+)`/g)) {
      if (!looksLikePath(text)) continue;
      const inFolder = !text.includes('/') && folder ? posix.join(folder, text) : undefined;
      paths.add(inFolder && (existsSync(join(root, inFolder)) || isGenerated(inFolder)) ? inFolder : text);
    }
  }
  return [...paths];
}

/** The targets of the doc's relative links, from the root. */
function linkedPaths(): string[] {
  return [...doc.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)]
    .map(([, target]) => target)
    .filter((target) => !/^[a-z]+:/.test(target))
    .map((target) => posix.join('docs', target));
}

test('the capture finds the paths the doc names', () => {
  const named = namedPaths();
  for (const known of [
    'store/store-scope.ts',
    'domain/upstream.ts',
    'lib/routes.ts',
    'domain/ports.ts',
    'bin/',
  ]) {
    expect(named).toContain(known);
  }
  expect(named).not.toContain('/stores/{store_id}');
});

test.each(namedPaths().map((path) => [path]))('docs/architecture.md names %s, which exists', (path) => {
  if (isGenerated(path)) {
    const ignored = readFileSync(join(root, '.gitignore'), 'utf8').split('\n');
    expect(ignored).toContain(GENERATED.find((generated) => path.startsWith(generated)));
    return;
  }
  expect({ path, exists: existsSync(join(root, path)) }).toEqual({ path, exists: true });
});

test('every relative link of docs/architecture.md leads to a file', () => {
  const links = linkedPaths();
  expect(links.length).toBeGreaterThan(0);
  for (const path of links)
    expect({ path, exists: existsSync(join(root, path)) }).toEqual({ path, exists: true });
});
