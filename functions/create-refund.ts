import { refundInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { refundView } from '../http/views';
import { createRefundRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { refundsFor } from '../runtime/refunds';

/** POST /refunds: an instant withdrawal with exchange, once per foreign_id. */
export const handler = apiRoute(
  { route: createRefundRoute, tokens: bearerTokens, input: refundInput },
  async (request, { storeId }) => {
    const { record, created } = await refundsFor(storeId).create(request);
    return { status: created ? 201 : 200, body: refundView(record) };
  },
);
