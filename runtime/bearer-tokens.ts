import type { BearerTokens, PlatformTokenSource } from '../domain/stores';
import { TokenHolders } from '../domain/token-holders';
import { parseTokensSecret, tokenSource } from '../secrets/bearer-tokens';
import { parsePlatformTokenSecret, platformTokenSource } from '../secrets/platform-token';
import { cachedSecret } from './secret';
import { storeRegistry } from './store-registry';

let platform: PlatformTokenSource | undefined;
/** Read only when a token is not the default store's: a poll with the storefront token never loads it. */
const platformToken: PlatformTokenSource = {
  get: () => platformSource().get(),
  refresh: () => platformSource().refresh(),
};
const platformSource = () =>
  (platform ??= platformTokenSource(cachedSecret('platformToken', parsePlatformTokenSecret)));

/** Only the bearer routes load this module, and only they may read the tokens secrets. */
export const bearerTokens: BearerTokens = new TokenHolders({
  defaultTokens: tokenSource(cachedSecret('tokens', parseTokensSecret)),
  platformToken,
  registry: storeRegistry,
  storeNow: (storeId) => storeRegistry.forChanges().get(storeId),
  now: Date.now,
});
