import { InvoiceService } from '../domain/invoices';
import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { cancelInvoiceRoute } from '../lib/routes';
import { invoiceLookupNotFound } from '../runtime/invoice-lookups';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';
import { invoiceStore } from '../runtime/stores';
import { claimTiming } from '../runtime/timing';
import { announceEvents } from '../runtime/webhook-events';

const invoices = new InvoiceService(invoiceStore, processing, claimTiming, {
  announce: announceEvents,
  onLookupNotFound: invoiceLookupNotFound,
});

/** POST /invoices/{foreign_id}/cancel: 200 with the updated view, 409 when its state does not allow it. */
export const handler = apiRoute(
  { route: cancelInvoiceRoute, tokens: bearerTokens, input: foreignIdInput },
  async (foreignId) => ({
    status: 200,
    body: invoiceView(await invoices.cancel(foreignId), Date.now()),
  }),
);
