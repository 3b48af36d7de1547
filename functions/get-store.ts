import { DEFAULT_STORE_ID } from '../domain/stores';
import { apiRoute } from '../http/route';
import { storeInput } from '../http/store-inputs';
import { defaultStoreView, storeView } from '../http/store-views';
import { getStoreRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/** GET /stores/{store_id}: the store, never a key, token or secret; 404 `store_not_found`. */
export const handler = apiRoute(
  { route: getStoreRoute, tokens: bearerTokens, input: storeInput },
  async ({ storeId, apiBase }) => ({
    status: 200,
    body:
      storeId === DEFAULT_STORE_ID
        ? defaultStoreView(process.env.DEFAULT_STORE_WEBHOOK_URL)
        : storeView(await storeAdmin.get(storeId), apiBase),
  }),
);
