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
    interface KeyElement {
      AttributeName: string;
    }
    interface Index {
      IndexName: string;
      KeySchema: KeyElement[];
      Projection: { ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE'; NonKeyAttributes?: string[] };
    }
    interface Table {
      TableName: string;
      KeySchema: KeyElement[];
      LocalSecondaryIndexes?: Index[];
      GlobalSecondaryIndexes?: Index[];
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
      indexes: db.Index[],
      existingItem: db.Item | undefined,
      item: db.Item | undefined,
      table: db.Table,
    ): { puts: db.IndexAction[]; deletes: db.IndexAction[] };
    updateIndexes: db.UpdateIndexes;
    /** What its writes check against the 400 KB limit (its own counts UTF-16 code units). */
    itemSize(item: db.Item): number;
  };
  export = db;
}
