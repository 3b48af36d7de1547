import type { TokenSource } from '../http/route';
import { parseTokens } from '../secrets/bearer-tokens';
import { cachedSecret } from './secret';

export const bearerTokens: TokenSource = cachedSecret('tokens', parseTokens);
