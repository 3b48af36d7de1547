import type { ProcessingApi } from '../domain/ports';
import { DEFAULT_STORE_ID, type StoreAccount, type StoreId } from '../domain/stores';
import { defaultStoreAccountOf, sharedAccountOf } from '../domain/upstream';
import { ProcessingAdapter } from '../processing/adapter';
import { ProcessingClient } from '../processing/client';
import { deadlineAt } from './deadline';
import { numberEnv, requireEnv } from './env';
import { processingKeys } from './processing-keys';
import { accountOf } from './store-account';

const timeouts = {
  deadline: deadlineAt,
  connectTimeoutMs: numberEnv('PROCESSING_CONNECT_TIMEOUT_MS', 3000),
  headersTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
  bodyTimeoutMs: numberEnv('PROCESSING_TIMEOUT_MS', 10000),
};

/** The payment service as the domain sees it, over one keep-alive client per process: the deployment's account. */
export const processing = new ProcessingAdapter(
  new ProcessingClient({ baseUrl: requireEnv('PROCESSING_BASE_URL'), keys: processingKeys, ...timeouts }),
);

/** The deployment's account as the default store's routes see it: another store's transaction is not found. */
const defaultStoreAccount = defaultStoreAccountOf(processing);

/** One client per store account as the registry last answered it: new keys or a new base URL make a new one. */
const ownAccounts = new WeakMap<StoreAccount, ProcessingApi>();
const byStore = new Map<StoreId, ProcessingApi>();

/**
 * The payment service for a store: the deployment's account for the default store, without the sharing stores'
 * transactions; the same account with the store's prefix on every foreign_id for a store that shares it
 * (domain/upstream.ts); the store's own keys and base URL otherwise. The store's account is looked up at each call, from the warm container's cache.
 */
export function processingFor(storeId: StoreId): ProcessingApi {
  if (storeId === DEFAULT_STORE_ID) return defaultStoreAccount;
  let found = byStore.get(storeId);
  if (!found) {
    const shared = sharedAccountOf(processing, storeId);
    const target = async (): Promise<ProcessingApi> => {
      const account = await accountOf(storeId);
      if (account.processing.account === 'shared') return shared;
      let own = ownAccounts.get(account);
      if (!own) {
        const { baseUrl, keys } = account.processing;
        own = new ProcessingAdapter(new ProcessingClient({ baseUrl, keys, ...timeouts }));
        ownAccounts.set(account, own);
      }
      return own;
    };
    found = {
      createInvoice: async (id, request) => (await target()).createInvoice(id, request),
      cancelInvoice: async (id) => (await target()).cancelInvoice(id),
      invoiceNews: async (invoiceId) => (await target()).invoiceNews(invoiceId),
      depositNews: async (ids, id) => (await target()).depositNews(ids, id),
      createWithdrawal: async (request) => (await target()).createWithdrawal(request),
      findWithdrawal: async (request) => (await target()).findWithdrawal(request),
      listBalances: async () => (await target()).listBalances(),
      rates: async (query) => (await target()).rates(query),
      pairs: async (query) => (await target()).pairs(query),
      transaction: async (query) => (await target()).transaction(query),
    };
    byStore.set(storeId, found);
  }
  return found;
}
