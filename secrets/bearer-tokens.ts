import type { Tokens, TokenSource } from '../http/route';
import type { CachedSecret } from './cached-secret';
import { PREVIOUS_TOKEN_FIELDS, TOKEN_FIELDS, type TokenScope } from './fields';
import { SecretFields } from './json-secret';

interface ScopeTokens {
  current: string;
  /** The token `current` replaced, accepted until `expiresAt` (epoch ms) so that callers can switch over. */
  previous?: { token: string; expiresAt: number };
}

export type TokensSecret = Record<TokenScope, ScopeTokens>;

/** The tokens secret: each scope's current token, and the previous one with its expiry while a rotation overlaps. */
export function parseTokensSecret(text: string | undefined): TokensSecret {
  const fields = new SecretFields('bearer tokens', text);
  const scope = (name: TokenScope): ScopeTokens => {
    const current = fields.required(TOKEN_FIELDS[name]);
    const previous = PREVIOUS_TOKEN_FIELDS[name];
    const token = fields.optional(previous.token);
    if (token === undefined) return { current };
    // No previous token without a stated end: it would stay valid forever.
    const expiresAt = fields.optionalTime(previous.expiresAt);
    if (expiresAt === undefined) {
      throw new Error(`The bearer tokens secret has "${previous.token}" but no "${previous.expiresAt}"`);
    }
    return { current, previous: { token, expiresAt } };
  };
  return { storefront: scope('storefront'), admin: scope('admin') };
}

/**
 * The tokens accepted now, from the cached secret. The answer is the same object for as long as it holds (until
 * the secret changes or a previous token expires), so that the check hashes the expected tokens once.
 */
export function tokenSource(secret: CachedSecret<TokensSecret>, now: () => number = Date.now): TokenSource {
  let answer: { secret: TokensSecret; tokens: Tokens; until: number } | undefined;
  const accepted = (value: TokensSecret): Tokens => {
    const at = now();
    if (answer?.secret !== value || at >= answer.until) answer = { secret: value, ...acceptedAt(value, at) };
    return answer.tokens;
  };
  return {
    get: async () => accepted(await secret.get()),
    refresh: async () => accepted(await secret.refresh()),
  };
}

function acceptedAt(secret: TokensSecret, at: number): { tokens: Tokens; until: number } {
  let until = Infinity;
  const acceptedOf = ({ current, previous }: ScopeTokens) => {
    if (!previous || previous.expiresAt <= at) return [current];
    until = Math.min(until, previous.expiresAt);
    return [current, previous.token];
  };
  const tokens = { storefront: acceptedOf(secret.storefront), admin: acceptedOf(secret.admin) };
  return { tokens, until };
}
