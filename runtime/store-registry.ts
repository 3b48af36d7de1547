import { CachedStoreRegistry } from '../store/store-cache';
import { DynamoStoreRegistry } from '../store/store-registry';
import { numberEnv } from './env';
import { table } from './table';

/**
 * The registry of stores, cached in the warm container for STORE_CACHE_SECONDS (default 60): a store's token and
 * item are read once per container and period, so a warm poll with a store's token reads only its invoice.
 */
export const storeRegistry = /* @__PURE__ */ new CachedStoreRegistry(
  new DynamoStoreRegistry(table),
  /* @__PURE__ */ numberEnv('STORE_CACHE_SECONDS', 60) * 1000,
);
