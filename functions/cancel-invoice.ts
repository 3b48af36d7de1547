import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { cancelInvoiceRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { invoices } from '../runtime/invoices';

/** POST /invoices/{foreign_id}/cancel: 200 with the updated view, 409 when its state does not allow it. */
export const handler = apiRoute(
  { route: cancelInvoiceRoute, tokens: bearerTokens, input: foreignIdInput },
  async (foreignId) => ({
    status: 200,
    body: invoiceView(await invoices.cancel(foreignId), Date.now()),
  }),
);
