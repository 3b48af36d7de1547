import { checkoutInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { invoiceView, type CheckoutView } from '../http/views';
import { checkoutRoute } from '../lib/routes';
import { explorers } from '../runtime/explorers';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { eligibility } from '../runtime/eligibility';
import { marketAccountOf } from '../runtime/market';
import { invoicesFor } from '../runtime/invoices';

/** POST /checkout: 201 with a new invoice, 200 with the same one for a repeated request. */
export const handler = apiRoute(
  { route: checkoutRoute, tokens: bearerTokens, limits: storeLimits, input: checkoutInput },
  async ({ sender, ...request }, { storeId }) => {
    try {
      const { record, created, clientSecret } = await invoicesFor(storeId).checkout(request, sender);
      // The secret is added to the view, not the view copied: the same JSON, one object fewer to build.
      const body: CheckoutView = Object.assign(invoiceView(record, Date.now(), explorers), {
        client_secret: clientSecret,
      });
      return { status: created ? 201 : 200, body };
    } catch (error) {
      // A refusal on the amount names the service's minimum; the pairs are read only then.
      throw await eligibility.namingMinimum(error, () => marketAccountOf(storeId), request);
    }
  },
);
