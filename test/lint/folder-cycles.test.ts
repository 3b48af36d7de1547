// Dependencies between the top-level folders run one way: no folder imports, however indirectly, one that imports it.
import * as fs from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const SKIPPED = new Set(['node_modules', 'test', 'cdk.out', 'coverage', 'test-artifacts']);

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'out' ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Which top-level folders each folder's files import, by relative path. */
function folderImports(): Map<string, Set<string>> {
  const folders = fs
    .readdirSync(ROOT, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !SKIPPED.has(entry.name))
    .map((entry) => entry.name);
  const graph = new Map<string, Set<string>>();
  for (const folder of folders) {
    const targets = new Set<string>();
    for (const file of sources(path.join(ROOT, folder))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const [, specifier] of text.matchAll(/(?:from|import\(?)\s*'(\.{1,2}\/[^']+)'/g)) {
        const target = path.relative(ROOT, path.resolve(path.dirname(file), specifier)).split(path.sep)[0];
        if (target !== folder && folders.includes(target)) targets.add(target);
      }
    }
    graph.set(folder, targets);
  }
  return graph;
}

/** The folders `from` reaches through imports. */
function reached(graph: Map<string, Set<string>>, from: string): Set<string> {
  const seen = new Set<string>();
  const pending = [...(graph.get(from) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    pending.push(...(graph.get(next) ?? []));
  }
  return seen;
}

test('the capture sees the imports it must: functions/ reaches domain/, domain/ reaches no folder', () => {
  const graph = folderImports();
  expect(reached(graph, 'functions').has('domain')).toBe(true);
  expect(reached(graph, 'domain').size).toBe(0);
});

test('no top-level folder reaches itself through another', () => {
  const graph = folderImports();
  const circular = [...graph.keys()].filter((folder) => reached(graph, folder).has(folder));
  expect(circular).toEqual([]);
});
