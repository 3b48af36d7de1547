// Links to a deposit on a block explorer (domain/explorers.ts).
import {
  DEFAULT_EXPLORER_URLS,
  explorerTemplateProblem,
  explorerTemplates,
  explorerUrl,
} from '../../domain/explorers';
import { CURRENCIES } from '../../sandbox/currencies';

test('every crypto currency the sandbox offers has a default, and each default can be used', () => {
  for (const currency of CURRENCIES.filter((known) => known.type === 'crypto'))
    expect({ currency: currency.code, has: currency.code in DEFAULT_EXPLORER_URLS }).toEqual({
      currency: currency.code,
      has: true,
    });
  for (const template of Object.values(DEFAULT_EXPLORER_URLS))
    expect(explorerTemplateProblem(template)).toBeUndefined();
});

test('the txid is URL-encoded into the template; a currency without one has no link', () => {
  expect(explorerUrl(DEFAULT_EXPLORER_URLS, 'BTC', 'ab12')).toBe('https://mempool.space/tx/ab12');
  expect(explorerUrl({ X: 'https://x.test/{txid}?q={txid}' }, 'X', 'a/b?c#d e')).toBe(
    'https://x.test/a%2Fb%3Fc%23d%20e?q=a%2Fb%3Fc%23d%20e',
  );
  expect(explorerUrl(DEFAULT_EXPLORER_URLS, 'EUR', 'ab12')).toBeNull();
  expect(explorerUrl(DEFAULT_EXPLORER_URLS, 'constructor', 'ab12')).toBeNull();
});

test('a stage overrides, adds and removes templates', () => {
  const merged = explorerTemplates(
    JSON.stringify({
      BTC: 'https://blockstream.info/tx/{txid}',
      DOGE: 'http://dogechain.test/{txid}',
      XRP: '',
    }),
  );
  expect(merged.BTC).toBe('https://blockstream.info/tx/{txid}');
  expect(merged.DOGE).toBe('http://dogechain.test/{txid}');
  expect(merged.XRP).toBeUndefined();
  expect(merged.ETH).toBe(DEFAULT_EXPLORER_URLS.ETH);
  expect(explorerTemplates(undefined)).toBe(DEFAULT_EXPLORER_URLS);
});

test.each([
  ['no {txid}', { BTC: 'https://mempool.space/tx/' }, 'Explorer URL for BTC must contain {txid}'],
  ['not http(s)', { BTC: 'javascript:alert({txid})' }, 'must be an http:// or https:// URL'],
  ['relative', { BTC: '/tx/{txid}' }, 'must be an absolute URL'],
  ['credentials', { BTC: 'https://u:p@x.test/{txid}' }, 'must not carry credentials'],
  ['not a string', { BTC: 7 }, 'must be a string'],
  ['not a currency code', { 'B T C': 'https://x.test/{txid}' }, 'is not a currency code'],
  ['not an object', ['https://x.test/{txid}'], 'must be an object'],
])('refused: %s', (_name, given, message) => {
  expect(() => explorerTemplates(given)).toThrow(message);
});

test('a value that is not JSON is refused with a clear message', () => {
  expect(() => explorerTemplates('{BTC:')).toThrow('must be a JSON object');
});
