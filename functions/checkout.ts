import { InvoiceService } from '../domain/invoices';
import { checkoutInput } from '../http/inputs';
import { apiRoute, serialisedAhead } from '../http/route';
import { invoiceView, type CheckoutView } from '../http/views';
import { checkoutRoute } from '../lib/routes';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';
import { clientSecrets } from '../runtime/client-secrets';
import { invoiceStore } from '../runtime/stores';
import { claimTiming } from '../runtime/timing';
import { announceEvents } from '../runtime/webhook-events';

const invoices = new InvoiceService(invoiceStore, processing, claimTiming, {
  clientSecrets,
  announce: announceEvents,
});

/**
 * POST /checkout: 201 with a new invoice, 200 with the same one for a repeated request. A new invoice's answer is
 * made while its record is written.
 */
export const handler = apiRoute(
  { route: checkoutRoute, tokens: bearerTokens, input: checkoutInput },
  (request) =>
    invoices.checkout(request, ({ record, created, clientSecret }) => {
      const body: CheckoutView = { ...invoiceView(record, Date.now()), client_secret: clientSecret };
      return serialisedAhead({ status: created ? 201 : 200, body });
    }),
);
