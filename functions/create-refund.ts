import { refundInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { refundView } from '../http/views';
import { createRefundRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { payoutsFor } from '../runtime/refunds';

/**
 * POST /refunds: an instant withdrawal with exchange, once per foreign_id. A store sharing the deployment's account:
 * 409 `shared_account`.
 */
export const handler = apiRoute(
  { route: createRefundRoute, tokens: bearerTokens, limits: storeLimits, input: refundInput },
  async (request, { storeId }) => {
    const { record, created } = await (await payoutsFor(storeId)).create(request);
    return { status: created ? 201 : 200, body: refundView(record) };
  },
);
