import { BalanceService } from '../domain/balances';
import { balancesInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { snapshotView } from '../http/views';
import { getBalancesRoute } from '../lib/routes';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';
import { snapshotStore } from '../runtime/stores';

const balances = new BalanceService(snapshotStore, processing, Date.now);

/** GET /balances: the latest snapshot; `?live=true`, or no snapshot yet, asks the service now. */
export const handler = apiRoute(
  { route: getBalancesRoute, tokens: bearerTokens, input: balancesInput },
  async ({ live }) => ({ status: 200, body: snapshotView(await balances.read(live)) }),
);
