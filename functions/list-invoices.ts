import { listNewest } from '../domain/lists';
import { invoiceOutcome } from '../domain/outcome';
import { recordListBody } from '../http/cursor';
import { invoiceListInput } from '../http/list-inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { listInvoicesRoute } from '../lib/routes';
import { explorers } from '../runtime/explorers';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { invoiceListFor } from '../runtime/lists';

/** GET /invoices: newest first, by status and creation time, a page at a time; from the table alone. */
export const handler = apiRoute(
  { route: listInvoicesRoute, tokens: bearerTokens, limits: storeLimits, input: invoiceListInput },
  async ({ query, status }, { storeId }) => {
    const now = Date.now();
    // The status the view shows, by the same mapping, without building the rest of the view.
    const matches =
      status && ((record: Parameters<typeof invoiceOutcome>[0]) => invoiceOutcome(record).status === status);
    const page = await listNewest(invoiceListFor(storeId), query, matches);
    return { status: 200, body: recordListBody(page, (record) => invoiceView(record, now, explorers)) };
  },
);
