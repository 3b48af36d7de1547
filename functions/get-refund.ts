import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { refundView } from '../http/views';
import { getRefundRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { refundsFor } from '../runtime/refunds';

/** GET /refunds/{foreign_id}: refreshed through transaction lookup while not final. */
export const handler = apiRoute(
  { route: getRefundRoute, tokens: bearerTokens, input: foreignIdInput },
  async (foreignId, { storeId }) => ({
    status: 200,
    body: refundView(await refundsFor(storeId).get(foreignId)),
  }),
);
