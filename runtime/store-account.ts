import { ConflictError, NotFoundError } from '../domain/errors';
import type { StoreAccount, StoreId } from '../domain/stores';
import { storeAccounts } from './store-accounts';

/** The store's account; a store the registry does not know is answered as not found. */
export async function accountOf(storeId: StoreId): Promise<StoreAccount> {
  const account = await storeAccounts.get(storeId);
  if (!account) throw new NotFoundError('Store');
  return account;
}

/** Whether the store exists; the default store does, with no read. */
export async function storeExists(storeId: StoreId): Promise<boolean> {
  return (await storeAccounts.get(storeId)) !== undefined;
}

/**
 * Balances and order-free payouts belong to an account. A store that shares the deployment's account has none of
 * its own: the account's money is every sharing store's together, and the default store's to see and pay out.
 * Such a store is refused, 409; `refused` names what it asked for.
 */
export async function requireOwnAccount(storeId: StoreId, refused: string): Promise<void> {
  const account = await accountOf(storeId);
  if (account.processing.account === 'shared') {
    throw new ConflictError(
      'shared_account',
      `This store shares the deployment's payment account: ${refused} are the default store's`,
    );
  }
}
