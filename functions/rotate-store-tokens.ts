import { apiRoute } from '../http/route';
import { rotateTokensInput } from '../http/store-inputs';
import { storeView } from '../http/store-views';
import { rotateStoreTokensRoute } from '../lib/routes';
import { bearerTokens } from '../runtime/bearer-tokens';
import { storeAdmin } from '../runtime/store-admin';

/** POST /stores/{store_id}/tokens/rotate: new tokens, answered once; the previous ones work for `grace_seconds`. */
export const handler = apiRoute(
  { route: rotateStoreTokensRoute, tokens: bearerTokens, input: rotateTokensInput },
  async ({ storeId, graceSeconds, apiBase }) => {
    const { record, tokens, previousExpireAt } = await storeAdmin.rotate(storeId, graceSeconds);
    return {
      status: 200,
      body: {
        store: storeView(record, apiBase),
        storefront_token: tokens.storefront,
        admin_token: tokens.admin,
        previous_tokens_expire_at: new Date(previousExpireAt).toISOString(),
      },
    };
  },
);
