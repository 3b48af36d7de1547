// docs/performance.md shows the committed bench run: its generated blocks must be what bench/performance-doc.ts
// renders from bench/results.json, so that a new run cannot be committed without its page.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { BenchResults } from '../../bench/benchmark';
import {
  blockOf,
  normalized,
  PERFORMANCE_DOC,
  performanceBlocks,
  type BlockName,
} from '../../bench/performance-doc';

const results = JSON.parse(
  readFileSync(path.join(__dirname, '..', '..', 'bench', 'results.json'), 'utf8'),
) as BenchResults;
const page = readFileSync(PERFORMANCE_DOC, 'utf8');
const rendered = performanceBlocks(results);

test('the committed results are a full run', () => {
  expect(results.mode).toBe('full');
});

test.each(Object.keys(rendered) as BlockName[])('the page shows the committed run: block %s', (name) => {
  expect(normalized(blockOf(page, name))).toEqual(normalized(rendered[name]));
});

test('every figure of the run has its row in the page', () => {
  const rows = normalized(blockOf(page, 'figures')).slice(1);
  expect(rows).toHaveLength(results.figures.length);
});

test('the comparison ignores formatting, not content', () => {
  const table = '| a | b |\n| --- | --- |\n| 1 | 2 |';
  expect(normalized('|   a   | b |\n| :-- | --: |\n|  1 |   2 |')).toEqual(normalized(table));
  expect(normalized('| a | b |\n| --- | --- |\n| 1 | 3 |')).not.toEqual(normalized(table));
  expect(normalized('one two\nthree')).toEqual(normalized('one two three'));
  expect(normalized('one two\nfour')).not.toEqual(normalized('one two three'));
});
