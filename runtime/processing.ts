import { NotConfiguredError } from '../domain/errors';
import type { ProcessingAccounts, ProcessingApi } from '../domain/ports';
import { DEFAULT_STORE_ID, type AccountKind, type StoreId } from '../domain/stores';
import { defaultStoreAccountOf, oneAccount, sharedAccountOf } from '../domain/upstream';
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
const defaultStoreAccount = oneAccount(defaultStoreAccountOf(processing));

/** Each own-account store's client, kept while its base URL stays, so that its connections stay open. */
const ownClients = new Map<StoreId, { baseUrl: string; api: ProcessingApi }>();

/** The store's own account, as its registry item and secret say now; refused when the store has none. */
async function ownAccountNow(storeId: StoreId): Promise<ProcessingApi> {
  const { processing: account } = await accountOf(storeId);
  if (account.account !== 'own')
    throw new NotConfiguredError('The store has no processing account of its own');
  const kept = ownClients.get(storeId);
  if (kept?.baseUrl === account.baseUrl) return kept.api;
  // The keys are read through the store's secret cache at each call, whichever registry read made them.
  const api = new ProcessingAdapter(
    new ProcessingClient({ baseUrl: account.baseUrl, keys: account.keys, ...timeouts }),
  );
  ownClients.set(storeId, { baseUrl: account.baseUrl, api });
  return api;
}

/** A ProcessingApi whose every call goes to the account `target` names at the time of the call. */
function resolvedAtEachCall(target: () => Promise<ProcessingApi>): ProcessingApi {
  return {
    createInvoice: async (id, request, sender) => (await target()).createInvoice(id, request, sender),
    cancelInvoice: async (id) => (await target()).cancelInvoice(id),
    invoiceNews: async (invoiceId) => (await target()).invoiceNews(invoiceId),
    depositNews: async (ids, id) => (await target()).depositNews(ids, id),
    createWithdrawal: async (request, receiver) => (await target()).createWithdrawal(request, receiver),
    findWithdrawal: async (request) => (await target()).findWithdrawal(request),
    listBalances: async () => (await target()).listBalances(),
    rates: async (query) => (await target()).rates(query),
    pairs: async (query) => (await target()).pairs(query),
    transaction: async (query) => (await target()).transaction(query),
  };
}

const byStore = new Map<StoreId, ProcessingAccounts>();
const nowByStore = new Map<StoreId, ProcessingApi>();

/**
 * A store's accounts at the payment service: the deployment's for the default store, without the sharing stores'
 * transactions; the same account with the store's prefix on every foreign_id for a store that shares it
 * (domain/upstream.ts); the store's own keys and base URL otherwise. Which one a store has now is read from the warm
 * container's cache at each call.
 */
export function processingAccountsFor(storeId: StoreId): ProcessingAccounts {
  if (storeId === DEFAULT_STORE_ID) return defaultStoreAccount;
  let found = byStore.get(storeId);
  if (!found) {
    const shared = sharedAccountOf(processing, storeId);
    const own = resolvedAtEachCall(() => ownAccountNow(storeId));
    const current = async (): Promise<AccountKind> => (await accountOf(storeId)).processing.account;
    const unpinned = async (): Promise<AccountKind> => (await accountOf(storeId)).unpinned;
    const onUnpinned = resolvedAtEachCall(async () => ((await unpinned()) === 'shared' ? shared : own));
    found = {
      current,
      unpinned,
      of: (kind) => (kind === 'shared' ? shared : kind === 'own' ? own : onUnpinned),
    };
    byStore.set(storeId, found);
  }
  return found;
}

/** The store's account now: its balances, rates and transaction lookups. */
export function processingFor(storeId: StoreId): ProcessingApi {
  if (storeId === DEFAULT_STORE_ID) return defaultStoreAccount.of('shared');
  let found = nowByStore.get(storeId);
  if (!found) {
    const shared = sharedAccountOf(processing, storeId);
    found = resolvedAtEachCall(async () =>
      (await accountOf(storeId)).processing.account === 'shared' ? shared : ownAccountNow(storeId),
    );
    nowByStore.set(storeId, found);
  }
  return found;
}
