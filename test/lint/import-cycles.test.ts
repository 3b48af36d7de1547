// No source file imports, however indirectly, one that imports it, and no folder does at any depth; type imports
// count too, since a circle of types is still a circle a reader must hold in their head at once.
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

const ROOT = path.resolve(__dirname, '../..');
const SKIPPED = new Set(['node_modules', 'test', 'cdk.out', 'coverage', 'test-artifacts', 'out']);

type Graph = Map<string, Set<string>>;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory())
      return SKIPPED.has(entry.name) || entry.name.startsWith('.') ? [] : sources(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Each source file's relative imports, root-relative: `import type`, `export from`, `import()` and `require` alike. */
function fileImports(): Graph {
  const files = sources(ROOT);
  const known = new Set(files);
  const resolve = (from: string, specifier: string) => {
    const base = path.resolve(path.dirname(from), specifier);
    return [base, `${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts')].find((file) => known.has(file));
  };
  const graph: Graph = new Map();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) => (fileName.startsWith('.') ? resolve(file, fileName) : undefined))
      .filter((target): target is string => target !== undefined && target !== file);
    graph.set(path.relative(ROOT, file), new Set(targets.map((target) => path.relative(ROOT, target))));
  }
  return graph;
}

/**
 * The graph among one folder's entries (its files and subfolders, a subfolder standing for every file in it): an
 * entry imports another when any of its files imports any of the other's.
 */
function entryImports(files: Graph, folder: string): Graph {
  const prefix = folder === '' ? '' : `${folder}/`;
  const entryOf = (file: string) =>
    file.startsWith(prefix) ? prefix + file.slice(prefix.length).split('/')[0] : undefined;
  const graph: Graph = new Map();
  for (const [file, targets] of files) {
    const from = entryOf(file);
    if (from === undefined) continue;
    const edges = graph.get(from) ?? new Set<string>();
    graph.set(from, edges);
    for (const target of targets) {
      const to = entryOf(target);
      if (to !== undefined && to !== from) edges.add(to);
    }
  }
  return graph;
}

/** The graph's circles: each strongly connected set of more than one node, sorted (Tarjan's algorithm). */
function circles(graph: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (stack.includes(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      members.push(member);
    } while (member !== node);
    if (members.length > 1) found.push(members.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

/** Every folder that holds a source file, at any depth, the root included. */
function folders(files: Graph): string[] {
  const all = new Set<string>(['']);
  for (const file of files.keys()) {
    for (let dir = path.posix.dirname(file); dir !== '.'; dir = path.posix.dirname(dir)) all.add(dir);
  }
  return [...all].sort();
}

const files = fileImports();

test('the capture sees the imports it must: type-only ones, and functions/ reaching domain/', () => {
  // domain/model.ts imports its ids with `import type` alone.
  expect(files.get('domain/model.ts')?.has('domain/ids.ts')).toBe(true);
  const top = entryImports(files, '');
  expect(top.get('functions')?.has('domain')).toBe(true);
  expect([...(top.get('domain') ?? [])]).toEqual([]);
});

test('the circle finder finds a circle of three, and nothing in a chain', () => {
  const graph: Graph = new Map([
    ['a', new Set(['b'])],
    ['b', new Set(['c'])],
    ['c', new Set(['a', 'd'])],
    ['d', new Set<string>()],
  ]);
  expect(circles(graph)).toEqual([['a', 'b', 'c']]);
  graph.set('c', new Set(['d']));
  expect(circles(graph)).toEqual([]);
});

test('two folders that import each other are a circle, though their files are not', () => {
  const graph: Graph = new Map([
    ['a/x.ts', new Set(['b/y.ts'])],
    ['b/y.ts', new Set<string>()],
    ['b/z.ts', new Set(['a/w.ts'])],
    ['a/w.ts', new Set<string>()],
  ]);
  expect(circles(graph)).toEqual([]);
  expect(circles(entryImports(graph, ''))).toEqual([['a', 'b']]);
});

test('no source file reaches itself through its imports', () => {
  expect(circles(files)).toEqual([]);
});

test('no folder reaches itself: in each folder, no file or subfolder reaches itself through the others', () => {
  const found = folders(files).flatMap((folder) => circles(entryImports(files, folder)));
  expect(found).toEqual([]);
});
