import type { TokenSource } from '../domain/ports';
import { parseTokensSecret, tokenSource } from '../secrets/bearer-tokens';
import { cachedSecret } from './secret';

/** Only the bearer routes load this module, and only they may read the tokens secret. */
export const bearerTokens: TokenSource = tokenSource(cachedSecret('tokens', parseTokensSecret));
