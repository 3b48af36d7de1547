import { InvoiceService } from '../domain/invoices';
import { checkoutInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { checkoutRoute } from '../lib/routes';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';
import { invoiceStore } from '../runtime/stores';
import { claimTiming } from '../runtime/timing';

const invoices = new InvoiceService(invoiceStore, processing, claimTiming);

/** POST /checkout: 201 with a new invoice, 200 with the same one for a repeated request. */
export const handler = apiRoute(
  { route: checkoutRoute, tokens: bearerTokens, input: checkoutInput },
  async (request) => {
    const { record, created } = await invoices.checkout(request);
    return { status: created ? 201 : 200, body: invoiceView(record, Date.now()) };
  },
);
