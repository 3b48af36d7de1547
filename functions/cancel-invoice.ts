import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { cancelInvoiceRoute } from '../lib/routes';
import { explorers } from '../runtime/explorers';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { invoicesFor } from '../runtime/invoices';

/** POST /invoices/{foreign_id}/cancel: 200 with the updated view, 409 when its state does not allow it. */
export const handler = apiRoute(
  { route: cancelInvoiceRoute, tokens: bearerTokens, limits: storeLimits, input: foreignIdInput },
  async (foreignId, { storeId }) => ({
    status: 200,
    body: invoiceView(await invoicesFor(storeId).cancel(foreignId), Date.now(), explorers),
  }),
);
