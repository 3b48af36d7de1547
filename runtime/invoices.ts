import { InvoiceService } from '../domain/invoices';
import { DEFAULT_TRAVEL_RULE_SENDER, type StoreId } from '../domain/stores';
import { customerSecretIssuer, senderDigestKey } from '../secrets/customer-secrets';
import { invoiceLookupNotFound } from './invoice-lookups';
import { newsMismatch } from './news-mismatch';
import { processingAccountsFor } from './processing';
import { accountOf } from './store-account';
import { keysOf } from './processing-keys';
import { invoiceStore } from './stores';
import { claimTiming } from './timing';
import { announceEvents } from './webhook-events';

const byStore = new Map<StoreId, InvoiceService>();

/**
 * A store's invoices: its records, its account at the payment service, its client secrets; one per store in a warm
 * container. Client secrets come from the processing keys a function that calls the service already holds: no
 * secret read of their own.
 */
export function invoicesFor(storeId: StoreId): InvoiceService {
  let service = byStore.get(storeId);
  if (!service) {
    service = new InvoiceService(
      invoiceStore.forStore(storeId),
      processingAccountsFor(storeId),
      claimTiming,
      {
        clientSecrets: customerSecretIssuer(keysOf(storeId), storeId),
        announce: announceEvents,
        onLookupNotFound: invoiceLookupNotFound,
        onNewsMismatch: newsMismatch,
        // Read at each checkout: a store's change reaches a warm container with its registry item's cache.
        senderDigestKey: senderDigestKey(keysOf(storeId), storeId),
        senderRule: async () => (await accountOf(storeId)).travelRuleSender ?? DEFAULT_TRAVEL_RULE_SENDER,
      },
    );
    byStore.set(storeId, service);
  }
  return service;
}
