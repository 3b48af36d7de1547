import type { OpenItems, Owned, VersionedStore } from '../../domain/ports';
import { DEFAULT_STORE_ID } from '../../domain/stores';
import { isOpen } from '../../domain/status';

interface Stored {
  foreignId: string;
  version: number;
  phase: string;
  status: string | null;
}

/**
 * The store contract in memory, for domain tests: the same conditional writes and open-items order as the
 * DynamoDB store, on copies, so that a test sees only what was written.
 */
export class MemoryStore<T extends Stored> implements VersionedStore<T>, OpenItems<T> {
  private readonly records = new Map<string, T>();

  /** `dueAt`: when the sweep is next due to look at an open record, as the index orders it. */
  constructor(private readonly dueAt: (record: T) => number) {}

  async get(foreignId: string): Promise<T | undefined> {
    const record = this.records.get(foreignId);
    return record && structuredClone(record);
  }

  async create(record: T): Promise<boolean> {
    if (this.records.has(record.foreignId)) return false;
    this.records.set(record.foreignId, structuredClone(record));
    return true;
  }

  async update(record: T, expectedVersion: number): Promise<boolean> {
    if (this.records.get(record.foreignId)?.version !== expectedVersion) return false;
    this.records.set(record.foreignId, structuredClone(record));
    return true;
  }

  async remove(foreignId: string, expectedVersion: number): Promise<boolean> {
    if (this.records.get(foreignId)?.version !== expectedVersion) return false;
    this.records.delete(foreignId);
    return true;
  }

  /** The default store's alone: a memory store holds one store's records. */
  async listOpen(limit: number, dueBy = Number.MAX_SAFE_INTEGER): Promise<Array<Owned<T>>> {
    return [...this.records.values()]
      .filter((record) => isOpen(record) && this.dueAt(record) <= dueBy)
      .sort((a, b) => this.dueAt(a) - this.dueAt(b))
      .slice(0, limit)
      .map((record) => ({ storeId: DEFAULT_STORE_ID, record: structuredClone(record) }));
  }
}
