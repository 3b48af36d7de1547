import { storeOfCustomerSecret } from '../domain/customer-secret';
import { readInvoiceForCustomer } from '../domain/invoice-reads';
import { publicInvoiceInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { etagMatches, invoiceEtag, publicInvoiceView } from '../http/views';
import { publicInvoiceRoute } from '../lib/routes';
import { explorers } from '../runtime/explorers';
import { storeLimits } from '../runtime/request-limits';
import { invoiceStore } from '../runtime/stores';

/**
 * GET /public/invoices/{foreign_id}: the customer's view of one invoice, with its client secret; one read, in the
 * store the secret names. The store's limit is spent only once its record holds the secret: a made-up secret
 * naming a store cannot spend that store's requests.
 */
export const handler = apiRoute(
  { route: publicInvoiceRoute, input: publicInvoiceInput },
  async ({ foreignId, ifNoneMatch, clientSecret }) => {
    const storeId = storeOfCustomerSecret(clientSecret);
    const record = await readInvoiceForCustomer(invoiceStore.forStore(storeId), foreignId, clientSecret);
    await storeLimits.admit(storeId);
    const headers = { etag: invoiceEtag(record), 'cache-control': 'private, no-cache' };
    if (etagMatches(ifNoneMatch, headers.etag)) return { status: 304, body: undefined, headers };
    return { status: 200, body: publicInvoiceView(record, Date.now(), explorers), headers };
  },
);
