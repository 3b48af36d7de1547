import { RefundService } from '../domain/refunds';
import { customerSecretIssuer } from '../secrets/customer-secrets';
import { numberEnv } from './env';
import { keysOf } from './processing-keys';
import { DEFAULT_STORE_ID, DEFAULT_TRAVEL_RULE, type StoreId } from '../domain/stores';
import { newsMismatch } from './news-mismatch';
import { invoicesFor } from './invoices';
import { processingAccountsFor } from './processing';
import { accountOf, requireOwnAccount } from './store-account';
import { refundStore } from './stores';
import { claimTiming } from './timing';
import { announceEvents } from './webhook-events';

const byStore = new Map<StoreId, RefundService>();

/** A store's refunds, reserved on that store's orders and sent from its account; one per store in a warm container. */
export function refundsFor(storeId: StoreId): RefundService {
  let service = byStore.get(storeId);
  if (!service) {
    const store = refundStore.forStore(storeId);
    service = new RefundService(store, processingAccountsFor(storeId), claimTiming, invoicesFor(storeId), {
      announce: announceEvents,
      onNewsMismatch: newsMismatch,
      claimLinks: {
        // As client secrets: from the processing keys a function that sends refunds already holds.
        tokens: customerSecretIssuer(keysOf(storeId), storeId, 'claimToken'),
        // The store's own setting, read at each link as the travel rule is; else the deployment's.
        days: async () => (await accountOf(storeId)).claimLinkDays ?? numberEnv('CLAIM_LINK_DAYS', 30),
      },
      // Read at each refund: a store's change reaches a warm container with its registry item's cache.
      travelRule: async () => (await accountOf(storeId)).travelRule ?? DEFAULT_TRAVEL_RULE,
    });
    byStore.set(storeId, service);
  }
  return service;
}

/**
 * A store's payouts tied to no order (`POST /refunds`): nothing bounds them but the account's balance, so a store
 * sharing the deployment's account is refused, 409 `shared_account`, before anything is written or sent.
 */
export async function payoutsFor(storeId: StoreId): Promise<RefundService> {
  if (storeId !== DEFAULT_STORE_ID) await requireOwnAccount(storeId, 'payouts tied to no order');
  return refundsFor(storeId);
}
