// Gives dynalite's index writes DynamoDB's cost, so that the bench does not count local latency that AWS lacks
// (docs/performance.md, "The local DynamoDB's indexes").
import dynaliteDb, { type Index, type Item, type Table, type UpdateIndexes } from 'dynalite/db';

const INDEX_TYPES = ['Local', 'Global'] as const;

/**
 * Index writes left for after their write's answer, in the order of the writes. One queue for the process: a local
 * DynamoDB's idle moment may write another's entries too, which is early, never late.
 */
const pending: Array<() => void> = [];

/**
 * Has dynalite write only the index entries a write changes, once the write has answered (flushIndexWrites).
 * Every request that may read an index is served after the writes before it have their entries, so a query still
 * sees every write it follows: more than DynamoDB's eventually consistent global indexes promise.
 */
export function writeIndexEntriesAfterAnswers(): void {
  dynaliteDb.updateIndexes = deferIndexWrites;
}

/**
 * Writes what is pending. The server calls it when it has no request in hand, before it serves one that may read
 * an index (so that none reads an index behind a write), when too many are pending, and before it closes.
 */
export function flushIndexWrites(): void {
  for (const write of pending.splice(0)) write();
}

/** Index writes not made yet. */
export function pendingIndexWrites(): number {
  return pending.length;
}

const deferIndexWrites: UpdateIndexes = (store, table, existingItem, item, done) => {
  pending.push(() => {
    for (const type of INDEX_TYPES) {
      for (const index of table[`${type}SecondaryIndexes`] ?? []) {
        // Most writes change no attribute an entry holds: told apart without working out its key before and after
        // (two MD5 digests each).
        if (existingItem && item && holdsSame(index, table, existingItem, item)) continue;
        const { puts, deletes } = dynaliteDb.getIndexActions([index], existingItem, item, table);
        const indexDb = store.getIndexDb(type, table.TableName, index.IndexName);
        // The in-memory store applies a write when it is called; only its callback waits. A failure rejects with
        // no callback to take it: an unhandled rejection, which stops the local stack rather than leave an index
        // wrong.
        for (const { key } of deletes) indexDb.del(key);
        for (const { key, item: entry } of puts) indexDb.put(key, entry);
      }
    }
  });
  done();
};

/** Whether the two items give `index` the same entry, or both none: every attribute it holds is the same in both. */
function holdsSame(index: Index, table: Table, before: Item, after: Item): boolean {
  const held =
    index.Projection.ProjectionType === 'ALL'
      ? new Set([...Object.keys(before), ...Object.keys(after)])
      : [
          ...index.KeySchema.map((key) => key.AttributeName),
          ...table.KeySchema.map((key) => key.AttributeName),
          ...(index.Projection.NonKeyAttributes ?? []),
        ];
  for (const name of held) if (!sameValue(before[name], after[name])) return false;
  return true;
}

/**
 * S and N values (every key of this project's) compared directly, the rest by JSON: equal values may then compare
 * unequal (a set in another order), which only costs an entry written again, never one left out.
 */
function sameValue(before: unknown, after: unknown): boolean {
  if (before === undefined || after === undefined) return before === after;
  const [a, b] = [before as { S?: string; N?: string }, after as { S?: string; N?: string }];
  if (a.S !== undefined || a.N !== undefined) return a.S === b.S && a.N === b.N;
  return JSON.stringify(before) === JSON.stringify(after);
}
