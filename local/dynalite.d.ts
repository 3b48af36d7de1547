declare module 'dynalite' {
  import type { Server } from 'node:http';
  interface DynaliteOptions {
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    path?: string;
  }
  function dynalite(options?: DynaliteOptions): Server;
  export = dynalite;
}

/** dynalite's storage helpers, as far as local/dynalite-indexes.ts uses them. */
declare module 'dynalite/db' {
  namespace db {
    type Item = Record<string, unknown>;
    type Callback = (error?: Error | null) => void;
    interface IndexAction {
      index: string;
      key: string;
      item: Item;
    }
    interface Table {
      TableName: string;
      LocalSecondaryIndexes?: unknown[];
      GlobalSecondaryIndexes?: unknown[];
    }
    interface IndexDb {
      put(key: string, item: Item, callback?: Callback): void;
      del(key: string, callback?: Callback): void;
    }
    interface Store {
      getIndexDb(type: 'Local' | 'Global', tableName: string, indexName: string): IndexDb;
    }
    type UpdateIndexes = (
      store: Store,
      table: Table,
      existingItem: Item | undefined,
      item: Item | undefined,
      callback: Callback,
    ) => void;
  }
  const db: {
    getIndexActions(
      indexes: unknown[],
      existingItem: db.Item | undefined,
      item: db.Item | undefined,
      table: db.Table,
    ): { puts: db.IndexAction[]; deletes: db.IndexAction[] };
    updateIndexes: db.UpdateIndexes;
  };
  export = db;
}
