import { RefundService } from '../domain/refunds';
import type { StoreId } from '../domain/stores';
import { invoicesFor } from './invoices';
import { processingFor } from './processing';
import { refundStore } from './stores';
import { claimTiming } from './timing';
import { announceEvents } from './webhook-events';

const byStore = new Map<StoreId, RefundService>();

/** A store's refunds, reserved on that store's orders and sent from its account; one per store in a warm container. */
export function refundsFor(storeId: StoreId): RefundService {
  let service = byStore.get(storeId);
  if (!service) {
    const store = refundStore.forStore(storeId);
    service = new RefundService(store, processingFor(storeId), claimTiming, invoicesFor(storeId), {
      announce: announceEvents,
    });
    byStore.set(storeId, service);
  }
  return service;
}
