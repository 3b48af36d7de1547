import type { Tokens, TokenSource } from '../domain/ports';
import type { CachedSecret } from './cached-secret';
import { TOKEN_FIELDS, type TokenScope } from './fields';
import { secretFields } from './json-secret';

/** A token the secret names: a scope's current one (never expires), or the one it replaced, until a stated time. */
interface NamedToken {
  scope: TokenScope;
  token: string;
  expiresAt: number;
}

/**
 * The tokens secret: each scope's current token, and while a rotation overlaps, `previous_<field>` with
 * `previous_<field>_expires_at` (ISO 8601). A previous token with no valid end is never accepted (NaN is never
 * later than now): not forever, and without locking out the current one.
 */
export function parseTokensSecret(text: string | undefined): NamedToken[] {
  const field = secretFields('bearer tokens', text);
  return (Object.entries(TOKEN_FIELDS) as Array<[TokenScope, string]>).flatMap(([scope, name]) => {
    const current = { scope, token: field(name, 'required'), expiresAt: Infinity };
    const previous = field(`previous_${name}`);
    const expiresAt = Date.parse(field(`previous_${name}_expires_at`) ?? '');
    return previous === undefined ? [current] : [current, { scope, token: previous, expiresAt }];
  });
}

/**
 * The tokens accepted now, from the cached secret. The answer is the same object for as long as it holds (until
 * the secret changes or a previous token expires), so that the check hashes the accepted tokens once.
 */
export function tokenSource(secret: CachedSecret<NamedToken[]>, now: () => number = Date.now): TokenSource {
  let answer: { named: NamedToken[]; tokens: Tokens; until: number } | undefined;
  const accepted = (named: NamedToken[]): Tokens => {
    const at = now();
    if (answer?.named !== named || at >= answer.until) {
      const live = named.filter(({ expiresAt }) => expiresAt > at);
      const of = (scope: TokenScope) =>
        live.filter((entry) => entry.scope === scope).map(({ token }) => token);
      const until = Math.min(...live.map(({ expiresAt }) => expiresAt));
      answer = { named, tokens: { storefront: of('storefront'), admin: of('admin') }, until };
    }
    return answer.tokens;
  };
  return {
    // One promise per call rather than an async function's two: the poll asks on every request.
    get: () => secret.get().then(accepted),
    refresh: () => secret.refresh().then(accepted),
  };
}
