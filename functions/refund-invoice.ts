import { orderRefundInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { refundView } from '../http/views';
import { refundInvoiceRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { refundsFor } from '../runtime/refunds';

/** POST /invoices/{foreign_id}/refunds: reserved on the order within what it netted, then sent once. */
export const handler = apiRoute(
  { route: refundInvoiceRoute, tokens: bearerTokens, input: orderRefundInput },
  async (request, { storeId }) => {
    const { record, created } = await refundsFor(storeId).create(request);
    return { status: created ? 201 : 200, body: refundView(record) };
  },
);
