import { isSignedBy, sign, signatureHeaders, signatureIn, verifySignature } from '../../processing/signing';

// Expected values computed independently: printf '%s' BODY | openssl dgst -sha512 -hmac SECRET
const SECRET = 'test-secret-key-0123456789';

describe('sign', () => {
  it.each([
    [
      '{"currency_from":"BTC","currency_to":"USDT"}',
      '392010d22472d9aae0f831dd0e75293b4634d5299d9e98a6db3d32b62c1e77e5fc2db14eac432c39ca0aa3528037f183861536464ab2d6218df895af70f62461',
    ],
    [
      '{}',
      '1a0956c5dd3708c7238e275a7c26856451117944e1f0e868e583079565ac15acf9925893aa74aa8f6d74f2846491d53fb00748c925a90a9fb35858a1008be682',
    ],
    [
      '{"title":"Café ☕","amount":"10.50000000"}',
      '6fe1e9790498b8af13faf1ae4d09c7ba2f89e6588bf71716cef1a907e1833bc3ab607f1adbb59841a4737901fb4f79c9c9046492b0b166805f2ca9dc3fa98cd9',
    ],
  ])('matches openssl for %s', (body, expected) => {
    expect(sign(SECRET, body)).toBe(expected);
    expect(sign(SECRET, Buffer.from(body, 'utf8'))).toBe(expected);
  });
});

describe('verifySignature', () => {
  const body = '{}';
  const valid = sign(SECRET, body);

  it('accepts the exact signature, in either case of hex, over a string or its bytes', () => {
    expect(verifySignature(SECRET, body, valid)).toBe(true);
    expect(verifySignature(SECRET, Buffer.from(body), valid.toUpperCase())).toBe(true);
  });

  it.each([
    ['trailing non-hex characters', `${valid}zz`],
    ['a trailing space', `${valid} `],
    ['a trailing newline', `${valid}\n`],
    ['a leading space', ` ${valid}`],
    ['one more hex byte', `${valid}00`],
    ['a truncated signature', valid.slice(0, 126)],
    ['an odd length', valid.slice(0, 127)],
    ['non-hex within', `${valid.slice(0, 64)}zz${valid.slice(66)}`],
    ['the signature of another body', sign(SECRET, '{ }')],
    ['a signature made with another secret', sign('another-secret', body)],
    ['an empty signature', ''],
  ])('refuses %s', (_name, signature) => {
    expect(verifySignature(SECRET, body, signature)).toBe(false);
  });
});

describe('the signature headers', () => {
  const keys = { apiKey: 'api-key-1', secretKey: SECRET };
  const body = Buffer.from('{"foreign_id":"order-1"}');
  const received = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));

  it('what the client sends is what a receiver verifies: the API key and the signature of the bytes', () => {
    const headers = signatureHeaders(keys, body);

    expect(headers).toEqual({
      'X-Processing-Key': 'api-key-1',
      'X-Processing-Signature': sign(SECRET, body),
    });
    expect(isSignedBy(keys, body, signatureIn(received(headers))!)).toBe(true);
  });

  it('refuses another key, another secret or other bytes', () => {
    const given = signatureIn(received(signatureHeaders(keys, body)))!;

    expect(isSignedBy({ ...keys, apiKey: 'api-key-2' }, body, given)).toBe(false);
    expect(isSignedBy({ ...keys, secretKey: 'another' }, body, given)).toBe(false);
    expect(isSignedBy(keys, Buffer.from('{"foreign_id":"order-2"}'), given)).toBe(false);
  });

  it('finds nothing unless both headers are there and not empty', () => {
    expect(signatureIn({ 'x-processing-key': 'k' })).toBeUndefined();
    expect(signatureIn({ 'x-processing-signature': 's' })).toBeUndefined();
    expect(signatureIn({ 'x-processing-key': '', 'x-processing-signature': 's' })).toBeUndefined();
  });
});
