import { InvoiceService } from '../domain/invoices';
import { RefundService } from '../domain/refunds';
import { foreignIdInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { refundView } from '../http/views';
import { getRefundRoute } from '../lib/routes';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';
import { invoiceStore, refundStore } from '../runtime/stores';
import { claimTiming } from '../runtime/timing';

const refunds = new RefundService(
  refundStore,
  processing,
  claimTiming,
  new InvoiceService(invoiceStore, processing, claimTiming),
);

/** GET /refunds/{foreign_id}: refreshed through transaction lookup while not final. */
export const handler = apiRoute(
  { route: getRefundRoute, tokens: bearerTokens, input: foreignIdInput },
  async (foreignId) => ({
    status: 200,
    body: refundView(await refunds.get(foreignId)),
  }),
);
