import { CallbackService } from '../domain/callbacks';
import type { StoreId } from '../domain/stores';
import { invoicesFor } from './invoices';
import { refundsFor } from './refunds';
import { receiptStore } from './stores';

const byStore = new Map<StoreId, CallbackService>();

/** Applies the payment service's callbacks to one store's records, with that store's receipts. */
export function callbacksFor(storeId: StoreId): CallbackService {
  let service = byStore.get(storeId);
  if (!service) {
    service = new CallbackService(receiptStore.forStore(storeId), invoicesFor(storeId), refundsFor(storeId));
    byStore.set(storeId, service);
  }
  return service;
}
