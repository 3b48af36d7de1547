import { csvAnswer, refundExportPage } from '../http/exports';
import { exportInput } from '../http/list-inputs';
import { apiRoute } from '../http/route';
import { exportRefundsRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { refundListFor } from '../runtime/lists';

/** GET /exports/refunds.csv: one row per refund created in the period, newest first; a `Link` to the next page. */
export const handler = apiRoute(
  { route: exportRefundsRoute, tokens: bearerTokens, limits: storeLimits, input: exportInput },
  async ({ query, period }, { storeId }) =>
    csvAnswer(
      await refundExportPage(refundListFor(storeId), query),
      exportRefundsRoute.path,
      period,
      'refunds.csv',
    ),
);
