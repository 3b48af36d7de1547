import { listBody } from '../http/cursor';
import { historyInput } from '../http/list-inputs';
import { apiRoute } from '../http/route';
import { snapshotView } from '../http/views';
import { balanceHistoryRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeLimits } from '../runtime/request-limits';
import { snapshotsFor } from '../runtime/snapshots';

/** GET /balances/history?since=: the store's account's snapshots since a time, oldest first, a page at a time. */
export const handler = apiRoute(
  { route: balanceHistoryRoute, tokens: bearerTokens, limits: storeLimits, input: historyInput },
  async ({ since, limit }, { storeId }) => {
    // One more than the page tells whether another page follows.
    const snapshots = await (await snapshotsFor(storeId)).since(since, limit + 1);
    const page = snapshots.slice(0, limit);
    const last = page.at(-1);
    const next = snapshots.length > limit && last ? { at: last.takenAt } : null;
    return { status: 200, body: listBody(page, snapshotView, next) };
  },
);
