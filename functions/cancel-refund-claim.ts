import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { refundView } from '../http/views';
import { cancelRefundClaimRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { refundsFor } from '../runtime/refunds';

/** POST /refunds/{foreign_id}/cancel-claim: an open claim link stops taking addresses, and its amount is released. */
export const handler = apiRoute(
  { route: cancelRefundClaimRoute, tokens: bearerTokens, limits: storeLimits, input: foreignIdInput },
  async (foreignId, { storeId }) => ({
    status: 200,
    body: refundView(await refundsFor(storeId).cancelClaim(foreignId)),
  }),
);
