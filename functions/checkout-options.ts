import { checkoutOptionsInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { checkoutOptionsView } from '../http/checkout-options-view';
import { checkoutOptionsRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { eligibility } from '../runtime/eligibility';
import { marketAccountOf } from '../runtime/market';

/** GET /checkout/options?amount=&currency=: the currencies a customer may pay the amount in, from cached pairs. */
export const handler = apiRoute(
  { route: checkoutOptionsRoute, tokens: bearerTokens, limits: storeLimits, input: checkoutOptionsInput },
  async ({ amount, currency }, { storeId }) => {
    const options = await eligibility.options(await marketAccountOf(storeId), amount, currency);
    return { status: 200, body: checkoutOptionsView(amount, currency, options) };
  },
);
