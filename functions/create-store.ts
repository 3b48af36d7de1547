import { apiRoute } from '../http/route';
import { newStoreInput } from '../http/store-inputs';
import { storeView } from '../http/store-views';
import { createStoreRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/** POST /stores: 201 with the store, and its tokens and webhook secret, answered this once; 409 when the id is taken. */
export const handler = apiRoute(
  { route: createStoreRoute, tokens: bearerTokens, input: newStoreInput },
  async ({ store, apiBase }) => {
    const { record, tokens, webhookSecret } = await storeAdmin.create(store);
    return {
      status: 201,
      body: {
        store: storeView(record, apiBase),
        storefront_token: tokens.storefront,
        admin_token: tokens.admin,
        webhook_secret: webhookSecret,
      },
    };
  },
);
