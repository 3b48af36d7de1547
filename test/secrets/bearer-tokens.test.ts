import { NotConfiguredError } from '../../domain/errors';
import { CachedSecret } from '../../secrets/cached-secret';
import { parseTokensSecret, tokenSource } from '../../secrets/bearer-tokens';

const HOUR = 3_600_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');

describe('parseTokensSecret', () => {
  test('reads the current tokens', () => {
    expect(parseTokensSecret(JSON.stringify({ storefront_token: 's', admin_token: 'a' }))).toEqual({
      storefront: { current: 's' },
      admin: { current: 'a' },
    });
  });

  test('reads a previous token with the time it stops being accepted', () => {
    const secret = parseTokensSecret(
      JSON.stringify({
        storefront_token: 's2',
        admin_token: 'a',
        previous_storefront_token: 's1',
        previous_storefront_token_expires_at: '2030-01-01T00:00:00Z',
      }),
    );
    expect(secret.storefront).toEqual({ current: 's2', previous: { token: 's1', expiresAt: T0 } });
    expect(secret.admin).toEqual({ current: 'a' });
  });

  test('a secret with no value yet is a step the deploy has not done (503)', () => {
    expect(() => parseTokensSecret(undefined)).toThrow(NotConfiguredError);
  });

  test.each([
    ['no admin token', { storefront_token: 'hunter2' }, /has no "admin_token"/],
    [
      'a previous token with no stated end',
      { storefront_token: 's', admin_token: 'a', previous_admin_token: 'hunter2' },
      /"previous_admin_token" but no "previous_admin_token_expires_at"/,
    ],
    [
      'an end that is not a time',
      {
        storefront_token: 's',
        admin_token: 'a',
        previous_admin_token: 'hunter2',
        previous_admin_token_expires_at: 'tomorrow',
      },
      /"previous_admin_token_expires_at" is not an ISO 8601 time/,
    ],
  ])('%s is refused, naming the field and quoting no value', (_label, value, message) => {
    const parse = () => parseTokensSecret(JSON.stringify(value));
    expect(parse).toThrow(message);
    expect(parse).not.toThrow(/hunter2/);
  });
});

describe('tokenSource', () => {
  function source(value: object) {
    let now = T0 - HOUR;
    let text = JSON.stringify(value);
    const secret = new CachedSecret(
      async () => text,
      parseTokensSecret,
      10 * HOUR,
      () => now,
    );
    return {
      tokens: tokenSource(secret, () => now),
      at: (ms: number) => (now = ms),
      put: (next: object) => (text = JSON.stringify(next)),
    };
  }
  const rotated = {
    storefront_token: 'new',
    admin_token: 'admin',
    previous_storefront_token: 'old',
    previous_storefront_token_expires_at: new Date(T0).toISOString(),
  };

  test('accepts the previous token until its stated time, and not from then on', async () => {
    const s = source(rotated);
    expect(await s.tokens.get()).toEqual({ storefront: ['new', 'old'], admin: ['admin'] });
    s.at(T0 - 1);
    expect((await s.tokens.get()).storefront).toEqual(['new', 'old']);
    s.at(T0);
    expect((await s.tokens.get()).storefront).toEqual(['new']);
  });

  test('answers the same object while nothing changes, so the check hashes the tokens once', async () => {
    const s = source(rotated);
    const first = await s.tokens.get();
    s.at(T0 - 1);
    expect(await s.tokens.get()).toBe(first);
    s.at(T0);
    const afterExpiry = await s.tokens.get();
    expect(afterExpiry).not.toBe(first);
    s.at(T0 + HOUR);
    expect(await s.tokens.get()).toBe(afterExpiry);
  });

  test('refresh() answers a newly rotated token', async () => {
    const s = source({ storefront_token: 's1', admin_token: 'a' });
    expect((await s.tokens.get()).storefront).toEqual(['s1']);
    s.put({ ...rotated, storefront_token: 's2', previous_storefront_token: 's1' });
    expect((await s.tokens.get()).storefront).toEqual(['s1']);
    s.at(T0 - HOUR + 1_000);
    expect((await s.tokens.refresh()).storefront).toEqual(['s2', 's1']);
  });
});
