import { refundReadInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { claimUrl, refundView } from '../http/views';
import { getRefundRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { claimPageUrl } from '../runtime/claim-page';
import { refundsFor } from '../runtime/refunds';

/** GET /refunds/{foreign_id}: refreshed through transaction lookup while not final; an open claim's link with it. */
export const handler = apiRoute(
  { route: getRefundRoute, tokens: bearerTokens, limits: storeLimits, input: refundReadInput },
  async ({ foreignId, apiBase }, { storeId }) => {
    const refunds = refundsFor(storeId);
    const record = await refunds.get(foreignId);
    const token = await refunds.claimToken(record);
    return {
      status: 200,
      body: refundView(record, token && claimUrl(claimPageUrl(apiBase), foreignId, token)),
    };
  },
);
