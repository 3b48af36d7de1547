import { DEFAULT_STORE_ID, type StoreAccount, type StoreAccounts } from '../domain/stores';

/** The default store, on the deployment's own processing account; its webhooks go where the deployment says. */
const DEFAULT_ACCOUNT: StoreAccount = {
  storeId: DEFAULT_STORE_ID,
  status: 'active',
  processing: { account: 'shared' },
};

/** Every store this deployment serves: for now, only the default store. */
export const storeAccounts: StoreAccounts = {
  get: async (storeId) => (storeId === DEFAULT_STORE_ID ? DEFAULT_ACCOUNT : undefined),
};
