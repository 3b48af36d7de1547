import { readInvoice } from '../domain/invoices';
import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { route } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { invoiceStore } from '../runtime/stores';

/** GET /invoices/{foreign_id}: from the table alone, never the service. */
export const handler = apiRoute(
  { route: route('get-invoice'), tokens: bearerTokens, input: foreignIdInput },
  async (foreignId) => ({
    status: 200,
    body: invoiceView(await readInvoice(invoiceStore, foreignId), Date.now()),
  }),
);
