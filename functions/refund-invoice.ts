import { orderRefundInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { claimUrl, refundView } from '../http/views';
import { refundInvoiceRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { claimPageUrl } from '../runtime/claim-page';
import { refundsFor } from '../runtime/refunds';

/**
 * POST /invoices/{foreign_id}/refunds: reserved on the order within what it netted, then sent once; without an
 * address, a claim link waits for the customer's.
 */
export const handler = apiRoute(
  { route: refundInvoiceRoute, tokens: bearerTokens, limits: storeLimits, input: orderRefundInput },
  async ({ refund, apiBase }, { storeId }) => {
    const refunds = refundsFor(storeId);
    const { record, created } = await refunds.create(refund);
    const token = await refunds.claimToken(record);
    const url = token && claimUrl(claimPageUrl(apiBase), record.foreignId, token);
    return { status: created ? 201 : 200, body: refundView(record, url) };
  },
);
