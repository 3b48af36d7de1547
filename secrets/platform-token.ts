import type { PlatformTokenSource } from '../domain/stores';
import type { CachedSecret } from './cached-secret';
import { PLATFORM_TOKEN_FIELD } from './fields';
import { secretFields } from './json-secret';

interface NamedToken {
  token: string;
  expiresAt: number;
}

/**
 * The platform token secret: `platform_token`, and during a rotation `previous_platform_token` with
 * `previous_platform_token_expires_at` (ISO 8601), as the tokens secret has them (secrets/bearer-tokens.ts).
 */
export function parsePlatformTokenSecret(text: string | undefined): NamedToken[] {
  const field = secretFields('platform token', text);
  const current = { token: field(PLATFORM_TOKEN_FIELD, 'required'), expiresAt: Infinity };
  const previous = field(`previous_${PLATFORM_TOKEN_FIELD}`);
  const expiresAt = Date.parse(field(`previous_${PLATFORM_TOKEN_FIELD}_expires_at`) ?? '');
  return previous === undefined ? [current] : [current, { token: previous, expiresAt }];
}

/** The tokens accepted now; the same array while nothing changes, so that the check hashes them once. */
export function platformTokenSource(
  secret: CachedSecret<NamedToken[]>,
  now: () => number = Date.now,
): PlatformTokenSource {
  let answer: { named: NamedToken[]; tokens: string[]; until: number } | undefined;
  const accepted = (named: NamedToken[]) => {
    const at = now();
    if (answer?.named !== named || at >= answer.until) {
      const live = named.filter(({ expiresAt }) => expiresAt > at);
      const until = Math.min(...live.map(({ expiresAt }) => expiresAt));
      answer = { named, tokens: live.map(({ token }) => token), until };
    }
    return answer.tokens;
  };
  return {
    get: async () => accepted(await secret.get()),
    refresh: async () => accepted(await secret.refresh()),
  };
}
