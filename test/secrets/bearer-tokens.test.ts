import { NotConfiguredError } from '../../domain/errors';
import { cacheSecret } from '../../secrets/cached-secret';
import { parseTokensSecret, tokenSource } from '../../secrets/bearer-tokens';

const HOUR = 3_600_000;
const T0 = Date.parse('2030-01-01T00:00:00Z');

describe('parseTokensSecret', () => {
  test('reads the current tokens, which never expire', () => {
    expect(parseTokensSecret(JSON.stringify({ storefront_token: 's', admin_token: 'a' }))).toEqual([
      { scope: 'storefront', token: 's', expiresAt: Infinity },
      { scope: 'admin', token: 'a', expiresAt: Infinity },
    ]);
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
    expect(secret).toEqual([
      { scope: 'storefront', token: 's2', expiresAt: Infinity },
      { scope: 'storefront', token: 's1', expiresAt: T0 },
      { scope: 'admin', token: 'a', expiresAt: Infinity },
    ]);
  });

  test('a secret with no value yet is a step the deploy has not done (503)', () => {
    expect(() => parseTokensSecret(undefined)).toThrow(NotConfiguredError);
  });

  test('a secret without a current token is refused, naming the field and quoting no value', () => {
    const parse = () => parseTokensSecret(JSON.stringify({ storefront_token: 'hunter2' }));
    expect(parse).toThrow(/has no "admin_token"/);
    expect(parse).not.toThrow(/hunter2/);
  });
});

describe('tokenSource', () => {
  function source(value: object) {
    let now = T0 - HOUR;
    let text = JSON.stringify(value);
    const secret = cacheSecret(
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

  test.each([
    ['with no stated end', {}],
    ['whose end is not a time', { previous_storefront_token_expires_at: 'tomorrow' }],
  ])('a previous token %s is never accepted, and the current one still is', async (_label, end) => {
    const s = source({
      storefront_token: 'new',
      admin_token: 'admin',
      previous_storefront_token: 'old',
      ...end,
    });
    expect(await s.tokens.get()).toEqual({ storefront: ['new'], admin: ['admin'] });
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
