// Pages of a newest-first list, with and without a filter: no duplicate, no gap, and bounded reads.
import { FILTER_BATCH, FILTER_BUDGET, listNewest, type ListPage } from '../../domain/lists';
import type { CreatedQuery, ListPosition, NewestFirst } from '../../domain/ports';

interface Row extends ListPosition {
  colour: 'red' | 'blue';
}

const newerFirst = (a: ListPosition, b: ListPosition) =>
  b.createdAt - a.createdAt || (a.foreignId < b.foreignId ? 1 : a.foreignId > b.foreignId ? -1 : 0);

/** The store's contract in memory: the order, the range and `more`, as the created index gives them. */
class MemoryList implements NewestFirst<Row> {
  read = 0;
  constructor(private readonly rows: Row[]) {}

  async listNewest({ after, createdFrom = 0, createdBefore = Infinity, limit }: CreatedQuery) {
    const matching = [...this.rows]
      .sort(newerFirst)
      .filter((row) => row.createdAt >= createdFrom && row.createdAt < createdBefore)
      .filter((row) => !after || newerFirst(after, row) < 0);
    const records = matching.slice(0, limit);
    this.read += records.length;
    return { records, more: matching.length > limit };
  }
}

/** Rows over few milliseconds, so that many share one; the newest is the last. */
function rows(count: number, red: (index: number) => boolean = () => false): Row[] {
  return Array.from({ length: count }, (_, i) => ({
    createdAt: 1_000 + Math.floor(i / 3),
    foreignId: `row-${i}`,
    colour: red(i) ? 'red' : 'blue',
  }));
}

async function walk(store: MemoryList, limit: number, matches?: (row: Row) => boolean) {
  const pages: Array<ListPage<Row>> = [];
  let after: ListPosition | undefined;
  do {
    const page = await listNewest(store, { limit, after }, matches);
    pages.push(page);
    after = page.next ?? undefined;
  } while (after);
  return pages;
}

const ids = (pages: Array<ListPage<Row>>) =>
  pages.flatMap((page) => page.records.map((row) => row.foreignId));
const expected = (all: Row[], keep: (row: Row) => boolean = () => true) =>
  [...all]
    .sort(newerFirst)
    .filter(keep)
    .map((row) => row.foreignId);
const isRed = (row: Row) => row.colour === 'red';

test('unfiltered pages are full until the last, and the last has no next cursor', async () => {
  const all = rows(45);
  for (const limit of [1, 7, 15, 45, 100]) {
    const pages = await walk(new MemoryList(all), limit);
    expect(ids(pages)).toEqual(expected(all));
    expect(pages.slice(0, -1).every((page) => page.records.length === limit)).toBe(true);
    expect(pages.at(-1)!.records.length).toBeGreaterThan(0);
  }
});

test('a filtered page stops at `limit` matches, even inside a batch, and the next page resumes after it', async () => {
  const all = rows(500, (i) => i % 3 === 0);
  const pages = await walk(new MemoryList(all), 10, isRed);
  expect(ids(pages)).toEqual(expected(all, isRed));
  expect(pages.map((page) => page.records.length)).toEqual([...Array(16).fill(10), 7]);
  expect(pages.at(-1)!.next).toBeNull();
});

test('a rare match: each page reads at most the budget, may come back short or empty, and skips nothing', async () => {
  // Only the oldest record and one in the middle: the newest FILTER_BUDGET hold none.
  const all = rows(5_000, (i) => i === 0 || i === 2_500);
  const store = new MemoryList(all);
  const first = await listNewest(store, { limit: 20 }, isRed);
  expect(store.read).toBe(FILTER_BUDGET);
  expect(first.records).toEqual([]);
  expect(first.next).not.toBeNull();
  const pages = await walk(new MemoryList(all), 20, isRed);
  expect(ids(pages)).toEqual(expected(all, isRed));
  expect(pages.length).toBe(Math.ceil(5_000 / FILTER_BUDGET));
});

test('a filtered page that fills on the very last record ends the list', async () => {
  const all = rows(FILTER_BATCH - 1);
  const page = await listNewest(new MemoryList(all), { limit: FILTER_BATCH - 1 }, () => true);
  expect(page.records).toHaveLength(FILTER_BATCH - 1);
  expect(page.next).toBeNull();
});
