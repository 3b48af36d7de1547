import { readInvoice } from '../domain/invoice-reads';
import { invoicePollInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { etagMatches, invoiceEtag, invoiceView } from '../http/views';
import { getInvoiceRoute } from '../lib/routes';
import { explorers } from '../runtime/explorers';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { invoiceStore } from '../runtime/stores';

/** GET /invoices/{foreign_id}: from the table alone, never the service; 304 when the caller's ETag is current. */
export const handler = apiRoute(
  { route: getInvoiceRoute, tokens: bearerTokens, limits: storeLimits, input: invoicePollInput },
  async ({ foreignId, ifNoneMatch }, { storeId }) => {
    const record = await readInvoice(invoiceStore.forStore(storeId), foreignId);
    // Private to the store, and worth keeping only to ask again with its ETag.
    const headers = { etag: invoiceEtag(record), 'cache-control': 'private, no-cache' };
    if (etagMatches(ifNoneMatch, headers.etag)) return { status: 304, body: undefined, headers };
    return { status: 200, body: invoiceView(record, Date.now(), explorers), headers };
  },
);
