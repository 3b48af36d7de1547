import { apiRoute } from '../http/route';
import { storeListInput } from '../http/store-inputs';
import { defaultStoreView, storeListBody } from '../http/store-views';
import { listStoresRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/** GET /stores: the default store first, then the others oldest first, a page at a time. */
export const handler = apiRoute(
  { route: listStoresRoute, tokens: bearerTokens, input: storeListInput },
  async ({ limit, after, apiBase }) => {
    // The first page starts with the default store, which the registry does not hold.
    const first = after ? undefined : defaultStoreView(process.env.DEFAULT_STORE_WEBHOOK_URL);
    const page = await storeAdmin.list({ limit: first ? limit - 1 : limit, after });
    return { status: 200, body: storeListBody(page, apiBase, first) };
  },
);
