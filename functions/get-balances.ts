import { balancesInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { snapshotView } from '../http/views';
import { getBalancesRoute } from '../lib/routes';
import { balancesFor } from '../runtime/balances';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';

/**
 * GET /balances: the latest snapshot of the store's account; `?live=true`, or no snapshot yet, asks the service
 * now. A store sharing the deployment's account: 409 `shared_account`.
 */
export const handler = apiRoute(
  { route: getBalancesRoute, tokens: bearerTokens, limits: storeLimits, input: balancesInput },
  async ({ live }, { storeId }) => ({
    status: 200,
    body: snapshotView(await (await balancesFor(storeId)).read(live)),
  }),
);
