import { apiRoute } from '../http/route';
import { storeChangesInput } from '../http/store-inputs';
import { storeView } from '../http/store-views';
import { updateStoreRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/** PATCH /stores/{store_id}: name, webhook URL, processing keys; 409 `default_store` for the default store. */
export const handler = apiRoute(
  { route: updateStoreRoute, tokens: bearerTokens, input: storeChangesInput },
  async ({ storeId, changes, apiBase }) => ({
    status: 200,
    body: storeView(await storeAdmin.update(storeId, changes), apiBase),
  }),
);
