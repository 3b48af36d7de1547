import { CallbackService } from '../domain/callbacks';
import type { AccountKind, StoreId } from '../domain/stores';
import { invoicesFor } from './invoices';
import { refundsFor } from './refunds';

const byEndpoint = new Map<string, CallbackService>();

/** Applies the callbacks that came to one account's endpoint to one store's records claimed on that account. */
export function callbacksFor(storeId: StoreId, via: AccountKind): CallbackService {
  const key = `${via} ${storeId}`;
  let service = byEndpoint.get(key);
  if (!service) {
    service = new CallbackService(invoicesFor(storeId), refundsFor(storeId), via);
    byEndpoint.set(key, service);
  }
  return service;
}
