import { listNewest } from '../domain/lists';
import { recordListBody } from '../http/cursor';
import { refundListInput } from '../http/list-inputs';
import { apiRoute } from '../http/route';
import { refundView } from '../http/views';
import { listRefundsRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { refundListFor } from '../runtime/lists';

/** GET /refunds: newest first, by creation time, a page at a time; as stored, with no lookup at the service. */
export const handler = apiRoute(
  { route: listRefundsRoute, tokens: bearerTokens, limits: storeLimits, input: refundListInput },
  async (query, { storeId }) => ({
    status: 200,
    body: recordListBody(await listNewest(refundListFor(storeId), query), refundView),
  }),
);
