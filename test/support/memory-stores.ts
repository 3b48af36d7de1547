// The store registry and the stores' own secrets in memory, for unit tests of what sits on the ports
// (domain/stores.ts).
import type { Tokens } from '../../domain/ports';
import type {
  StoreId,
  StoreRecord,
  StoreRegistry,
  StoreSecrets,
  StoreSecretValues,
  TokenOwner,
} from '../../domain/stores';
import { TokenHolders } from '../../domain/token-holders';

export class MemoryStoreRegistry implements StoreRegistry {
  readonly stores = new Map<string, StoreRecord>();
  readonly owners = new Map<string, TokenOwner>();
  /** Every read, by kind, as a test counts what a cache spared. */
  readonly reads = { store: 0, token: 0 };

  async get(storeId: string) {
    this.reads.store += 1;
    return this.stores.get(storeId);
  }

  async create(record: StoreRecord) {
    if (this.stores.has(record.id)) return false;
    this.stores.set(record.id, record);
    return true;
  }

  async update(record: StoreRecord) {
    if (this.stores.get(record.id)?.version !== record.version - 1) return false;
    this.stores.set(record.id, record);
    return true;
  }

  async addToken(owner: TokenOwner) {
    if (this.owners.has(owner.hash)) throw new Error('A token digest is already in the registry');
    this.owners.set(owner.hash, owner);
  }

  async tokenOwner(hash: string) {
    this.reads.token += 1;
    return this.owners.get(hash);
  }

  async list({ limit, after }: { limit: number; after?: { createdAt: number; id: string } }) {
    // As the table's `created` index, which an unfinished store is not in.
    const sorted = [...this.stores.values()]
      .filter((s) => !s.unfinished)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .filter(
        (s) =>
          !after || s.createdAt > after.createdAt || (s.createdAt === after.createdAt && s.id > after.id),
      );
    return { records: sorted.slice(0, limit), more: sorted.length > limit };
  }
}

/** Bearer tokens of the default store alone, as a deployment from before stores: no platform token matches. */
export function defaultStoreTokens(tokens: Tokens) {
  const registry = new MemoryStoreRegistry();
  return new TokenHolders({
    defaultTokens: { get: async () => tokens, refresh: async () => tokens },
    platformToken: { get: async () => [], refresh: async () => [] },
    registry,
    storeNow: (storeId) => registry.get(storeId),
    now: Date.now,
  });
}

/** As Secrets Manager: a write needs the secret made first. */
export class MemorySecrets implements StoreSecrets {
  readonly values = new Map<StoreId, StoreSecretValues>();
  async create(storeId: StoreId, values: StoreSecretValues) {
    this.values.set(storeId, values);
  }
  async read(storeId: StoreId) {
    return this.values.get(storeId);
  }
  async write(storeId: StoreId, values: StoreSecretValues) {
    if (!this.values.has(storeId)) throw new Error('no such secret');
    this.values.set(storeId, values);
  }
}

/** Limits that admit every request: for tests of what a route does within its store's limit. */
export const unlimited = { admit: () => Promise.resolve() };
