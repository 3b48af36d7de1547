import { InvoiceService } from '../domain/invoices';
import { clientSecretIssuer } from '../secrets/client-secrets';
import { invoiceLookupNotFound } from './invoice-lookups';
import { processing } from './processing';
import { processingKeys } from './processing-keys';
import { invoiceStore } from './stores';
import { claimTiming } from './timing';
import { announceEvents } from './webhook-events';

/**
 * The invoices over the deployed stores. Client secrets come from the processing keys a function that calls the
 * service already holds: no secret read of their own.
 */
export const invoices = /* @__PURE__ */ new InvoiceService(invoiceStore, processing, claimTiming, {
  clientSecrets: /* @__PURE__ */ clientSecretIssuer(processingKeys),
  announce: announceEvents,
  onLookupNotFound: invoiceLookupNotFound,
});
