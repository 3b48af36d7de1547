import { transactionInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { lookupTransactionRoute } from '../lib/routes';
import { processingFor } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';

/** GET /transactions?id= or ?foreign_id=: the service's transaction record. */
export const handler = apiRoute(
  { route: lookupTransactionRoute, tokens: bearerTokens, limits: storeLimits, input: transactionInput },
  async (query, { storeId }) => ({
    status: 200,
    body: await processingFor(storeId).transaction(query),
  }),
);
