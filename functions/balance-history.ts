import { historyInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { snapshotView } from '../http/views';
import { balanceHistoryRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { snapshotStore } from '../runtime/stores';

/** GET /balances/history?since=: snapshots taken since a time, oldest first. */
export const handler = apiRoute(
  { route: balanceHistoryRoute, tokens: bearerTokens, input: historyInput },
  async ({ since, limit }) => ({
    status: 200,
    body: { data: (await snapshotStore.since(since, limit)).map(snapshotView) },
  }),
);
