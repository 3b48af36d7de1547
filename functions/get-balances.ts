import { BalanceService } from '../domain/balances';
import { NotFoundError } from '../domain/errors';
import { balancesInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { snapshotView } from '../http/views';
import { getBalancesRoute } from '../lib/routes';
import { processing } from '../runtime/processing';
import { bearerTokens } from '../runtime/bearer-tokens';
import { snapshotStore } from '../runtime/stores';

const balances = new BalanceService(snapshotStore, processing, Date.now);

/** GET /balances: the latest snapshot; `?live=true` asks the service now and stores a snapshot. */
export const handler = apiRoute(
  { route: getBalancesRoute, tokens: bearerTokens, input: balancesInput },
  async ({ live }) => {
    const snapshot = live ? await balances.snapshot('live') : await balances.latest();
    if (!snapshot) throw new NotFoundError('A balance snapshot');
    return { status: 200, body: snapshotView(snapshot) };
  },
);
