import { readInvoice } from '../domain/invoices';
import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { getInvoiceRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { invoiceStore } from '../runtime/stores';

/** GET /invoices/{foreign_id}: from the table alone, never the service. */
export const handler = apiRoute(
  { route: getInvoiceRoute, tokens: bearerTokens, input: foreignIdInput },
  async (foreignId) => ({
    status: 200,
    body: invoiceView(await readInvoice(invoiceStore, foreignId), Date.now()),
  }),
);
