import { csvAnswer, invoiceExportPage } from '../http/exports';
import { exportInput } from '../http/list-inputs';
import { apiRoute } from '../http/route';
import { exportInvoicesRoute } from '../lib/routes';
import { explorers } from '../runtime/explorers';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { invoiceListFor } from '../runtime/lists';

/** GET /exports/invoices.csv: one row per order created in the period, newest first; a `Link` to the next page. */
export const handler = apiRoute(
  { route: exportInvoicesRoute, tokens: bearerTokens, limits: storeLimits, input: exportInput },
  async ({ query, period }, { storeId }) =>
    csvAnswer(
      await invoiceExportPage(invoiceListFor(storeId), query, explorers),
      exportInvoicesRoute.path,
      period,
      'invoices.csv',
    ),
);
