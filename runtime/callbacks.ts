import { CallbackService } from '../domain/callbacks';
import type { StoreId } from '../domain/stores';
import { invoicesFor } from './invoices';
import { refundsFor } from './refunds';

const byStore = new Map<StoreId, CallbackService>();

/** Applies the payment service's callbacks to one store's records. */
export function callbacksFor(storeId: StoreId): CallbackService {
  let service = byStore.get(storeId);
  if (!service) {
    service = new CallbackService(invoicesFor(storeId), refundsFor(storeId));
    byStore.set(storeId, service);
  }
  return service;
}
