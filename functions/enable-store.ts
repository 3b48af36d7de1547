import { apiRoute } from '../http/route';
import { storeInput } from '../http/store-inputs';
import { storeView } from '../http/store-views';
import { enableStoreRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/** POST /stores/{store_id}/enable: its tokens work again. */
export const handler = apiRoute(
  { route: enableStoreRoute, tokens: bearerTokens, input: storeInput },
  async ({ storeId, apiBase }) => ({
    status: 200,
    body: storeView(await storeAdmin.setStatus(storeId, 'active'), apiBase),
  }),
);
