import { listNewest } from '../domain/lists';
import { recordListBody } from '../http/cursor';
import { invoiceListInput } from '../http/list-inputs';
import { apiRoute } from '../http/route';
import { invoiceView } from '../http/views';
import { listInvoicesRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { invoiceList } from '../runtime/lists';

/** GET /invoices: newest first, by status and creation time, a page at a time; from the table alone. */
export const handler = apiRoute(
  { route: listInvoicesRoute, tokens: bearerTokens, input: invoiceListInput },
  async ({ query, status }) => {
    const now = Date.now();
    const view = (record: Parameters<typeof invoiceView>[0]) => invoiceView(record, now);
    const page = await listNewest(invoiceList, query, status && ((record) => view(record).status === status));
    return { status: 200, body: recordListBody(page, view) };
  },
);
