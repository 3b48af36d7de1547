import type { CreatedQuery, ListPosition, NewestFirst } from './ports';

export interface ListPage<T> {
  records: T[];
  /** Where the next page starts; null at the end. */
  next: ListPosition | null;
}

/** How many records a filtered page reads from the store at a time, and at most in all before it answers. */
export const FILTER_BATCH = 100;
export const FILTER_BUDGET = 1_000;

/**
 * A page of the records newest first, filtered on the records read rather than in the index, so that a status
 * change never writes the index; a page that reads FILTER_BUDGET stops short (docs/internals.md, "Lists").
 */
export async function listNewest<T extends ListPosition>(
  store: NewestFirst<T>,
  query: CreatedQuery,
  matches?: (record: T) => boolean,
): Promise<ListPage<T>> {
  const found: T[] = [];
  let after = query.after;
  for (let examined = 0; examined < FILTER_BUDGET;) {
    const batch = await store.listNewest({ ...query, after, limit: matches ? FILTER_BATCH : query.limit });
    for (const [index, record] of batch.records.entries()) {
      if (matches && !matches(record)) continue;
      found.push(record);
      const last = index === batch.records.length - 1;
      if (found.length === query.limit)
        return { records: found, next: last && !batch.more ? null : at(record) };
    }
    const lastRead = batch.records.at(-1);
    if (!batch.more || !lastRead) return { records: found, next: null };
    after = at(lastRead);
    examined += batch.records.length;
  }
  return { records: found, next: after ?? null };
}

function at({ createdAt, foreignId }: ListPosition): ListPosition {
  return { createdAt, foreignId };
}

/**
 * Records newest first from `query` on, FILTER_BATCH at a time, handed to `take` one by one until it says the
 * page is full: an export's page, sized by what it writes rather than by a count of records. `next` is where the
 * page stopped, null when no record is left.
 */
export async function listUntilFull<T extends ListPosition>(
  store: NewestFirst<T>,
  query: Omit<CreatedQuery, 'limit'>,
  take: (record: T) => 'more' | 'full',
): Promise<{ next: ListPosition | null }> {
  let after = query.after;
  for (;;) {
    const batch = await store.listNewest({ ...query, after, limit: FILTER_BATCH });
    for (const [index, record] of batch.records.entries()) {
      if (take(record) === 'more') continue;
      const last = index === batch.records.length - 1;
      return { next: last && !batch.more ? null : at(record) };
    }
    const lastRead = batch.records.at(-1);
    if (!batch.more || !lastRead) return { next: null };
    after = at(lastRead);
  }
}
