import { apiRoute } from '../http/route';
import { storeInput } from '../http/store-inputs';
import { storeView } from '../http/store-views';
import { disableStoreRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/** POST /stores/{store_id}/disable: its tokens answer 403 `store_disabled`; its callbacks and webhooks go on. */
export const handler = apiRoute(
  { route: disableStoreRoute, tokens: bearerTokens, input: storeInput },
  async ({ storeId, apiBase }) => ({
    status: 200,
    body: storeView(await storeAdmin.setStatus(storeId, 'disabled'), apiBase),
  }),
);
