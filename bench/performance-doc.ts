// The figures docs/performance.md shows, rendered from a full run's results: `npm run bench` writes them into the
// page, and test/docs/performance.test.ts holds the page to the committed bench/results.json.
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { BenchResults } from './benchmark';
import { formatTarget, formatValue } from './figures';

export const PERFORMANCE_DOC = path.join(__dirname, '..', 'docs', 'performance.md');

/** The page's generated blocks, each between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->`. */
export type BlockName = 'run' | 'figures' | 'cost';

/** A table cell's text: a pipe would end the cell, and `<` would open an HTML tag (`INVOICE#<n>`). */
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/</g, '&lt;');

/** Each block's markdown for `results`. */
export function performanceBlocks(results: BenchResults): Record<BlockName, string> {
  const { machine, figures } = results;
  const targeted = figures.filter((f) => f.met !== undefined);
  const met = targeted.filter((f) => f.met).length;
  const load = (at: number[]) => at[0].toFixed(2);
  const run =
    `The run below started ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC and took ${results.seconds} s, ` +
    `on Node ${machine.node.replace(/^v/, '')} with ${machine.cpus} cores (load average ${load(machine.loadAverageAtStart)} ` +
    `at the start, ${load(machine.loadAverageAtEnd)} at the end). It met ${met} of its ${targeted.length} targets.`;
  const rows = figures.map((f) =>
    [
      f.label,
      formatValue(f.value, f.unit) + (f.detail ? ` (${f.detail})` : ''),
      f.target ? formatTarget(f.target, f.unit) : '',
      f.met === undefined ? '' : f.met ? 'met' : 'NOT MET',
    ].map(cell),
  );
  const table = [['figure', 'value', 'target', 'met'], ['---', '---', '---', '---'], ...rows]
    .map((cells) => `| ${cells.join(' | ')} |`)
    .join('\n');
  return { run, figures: table, cost: results.costTable };
}

const BLOCK = (name: string) => new RegExp(`(<!-- bench:${name} -->)([\\s\\S]*?)(<!-- /bench:${name} -->)`);

/** The text of the block `name` in `page`. */
export function blockOf(page: string, name: BlockName): string {
  const found = BLOCK(name).exec(page);
  if (!found) throw new Error(`docs/performance.md has no block bench:${name}`);
  return found[2];
}

/** Compared without the padding and line breaks that formatting adds, and without a table's separator row. */
export function normalized(block: string): string[] {
  return block
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^\|[\s|:-]+\|$/.test(line))
    .map((line) =>
      line.startsWith('|')
        ? line
            .split(/(?<!\\)\|/)
            .map((part) => part.trim())
            .join('|')
        : line.replace(/\s+/g, ' '),
    )
    .reduce<string[]>((lines, line) => {
      // A paragraph that formatting wrapped is one line again.
      const last = lines.length - 1;
      if (last >= 0 && !line.startsWith('|') && !lines[last].startsWith('|')) lines[last] += ` ${line}`;
      else lines.push(line);
      return lines;
    }, []);
}

/** Writes the blocks for `results` into docs/performance.md, formatted as the repository formats markdown. */
export async function writePerformanceDoc(results: BenchResults): Promise<void> {
  let page = readFileSync(PERFORMANCE_DOC, 'utf8');
  for (const [name, text] of Object.entries(performanceBlocks(results))) {
    blockOf(page, name as BlockName);
    page = page.replace(
      BLOCK(name),
      (_, open: string, __: string, close: string) => `${open}\n\n${text}\n\n${close}`,
    );
  }
  // Loaded here: the page's test renders its blocks without it.
  const { format, resolveConfig } = await import('prettier');
  const options = await resolveConfig(PERFORMANCE_DOC);
  writeFileSync(PERFORMANCE_DOC, await format(page, { ...options, filepath: PERFORMANCE_DOC }));
}
