import { api, hmacHex, raw, useSandbox } from './support';

// Spec section 5 (authentication), 7.2 (403 codes) and the content rule of 7.1.

const getSandbox = useSandbox({ apiKey: 'kat-api-key', secretKey: 'kat-secret-key' });

// Known answer, computed once with `openssl dgst -sha512 -hmac kat-secret-key`.
const KAT_BODY = '{"currency_from":"BTC","currency_to":"USD"}';
const KAT_SIGNATURE =
  '5fe35f8be132c6f2941032be66a9e86ee4ee2b2d778a43255ddb284bb35efe85ebf72e23999c3f4ada834bc9b84efa9b4660958644e09b36fb80ec03f7113c28';
const EMPTY_BODY_SIGNATURE =
  'd24197f935f294157fa06bde3c8e369b6b78be4401b4d8705d871d0b50fd4f0a81d4f00ebb332e152304d54181b122c5411fe61c413714e452f3e4577f98acef';

const ENDPOINTS: [string, string][] = [
  ['POST', '/v2/invoices/create'],
  ['POST', '/v2/invoices/any-id/cancel/'],
  ['POST', '/v2/crypto/withdrawal_instant_exchange'],
  ['POST', '/v2/accounts/list'],
  ['POST', '/v2/currencies/rates'],
  ['POST', '/v2/currencies/pairs'],
  ['GET', '/v2/transactions/info?id=1'],
];

function call(headers: Record<string, string>, body = KAT_BODY, path = '/v2/currencies/rates') {
  return raw(getSandbox(), 'POST', path, {
    body,
    headers: { 'Content-Type': 'application/json', ...headers },
  });
}

describe('signature known-answer vector', () => {
  test('the fixed secret and body give the fixed hex signature, which the sandbox accepts', async () => {
    expect(hmacHex('kat-secret-key', KAT_BODY)).toBe(KAT_SIGNATURE);
    const answer = await call({ 'X-Processing-Key': 'kat-api-key', 'X-Processing-Signature': KAT_SIGNATURE });
    expect(answer.status).toBe(200);
  });

  test('one changed byte of the body gives bad_header_signature', async () => {
    const changed = KAT_BODY.replace('USD', 'EUR');
    const answer = await call(
      { 'X-Processing-Key': 'kat-api-key', 'X-Processing-Signature': KAT_SIGNATURE },
      changed,
    );
    expect(answer.status).toBe(403);
    expect(answer.json.code).toBe('bad_header_signature');
  });

  test('one changed hex digit of the signature gives bad_header_signature', async () => {
    const changed = `${KAT_SIGNATURE.slice(0, -1)}9`;
    const answer = await call({ 'X-Processing-Key': 'kat-api-key', 'X-Processing-Signature': changed });
    expect(answer.json.code).toBe('bad_header_signature');
  });

  test('a GET without a body is signed over the empty string', async () => {
    const answer = await raw(getSandbox(), 'GET', '/v2/transactions/info?id=424242', {
      headers: { 'X-Processing-Key': 'kat-api-key', 'X-Processing-Signature': EMPTY_BODY_SIGNATURE },
    });
    expect(answer.status).toBe(404);
    expect(answer.json).toEqual({ error: 'Transaction not found', code: 'not_found' });
  });
});

describe('5. Authentication', () => {
  test.each(ENDPOINTS)(
    '5.1 every request carries X-Processing-Key: %s %s without it is 403',
    async (method, path) => {
      const answer = await raw(getSandbox(), method, path, {
        body: '{}',
        headers: {
          'Content-Type': 'application/json',
          'X-Processing-Signature': hmacHex('kat-secret-key', '{}'),
        },
      });
      expect(answer.status).toBe(403);
      expect(answer.json.code).toBe('required_header_key');
    },
  );

  test('5.2 X-Processing-Signature is the hex HMAC-SHA512 of the exact body bytes', async () => {
    // Same JSON value, different bytes: the signature must follow the bytes.
    const spaced = '{ "currency_from": "BTC", "currency_to": "USD" }';
    const answer = await call(
      { 'X-Processing-Key': 'kat-api-key', 'X-Processing-Signature': KAT_SIGNATURE },
      spaced,
    );
    expect(answer.json.code).toBe('bad_header_signature');
    const signed = await call(
      { 'X-Processing-Key': 'kat-api-key', 'X-Processing-Signature': hmacHex('kat-secret-key', spaced) },
      spaced,
    );
    expect(signed.status).toBe(200);
  });

  test('5.2 an upper-case hex signature is the same signature', async () => {
    const answer = await call({
      'X-Processing-Key': 'kat-api-key',
      'X-Processing-Signature': KAT_SIGNATURE.toUpperCase(),
    });
    expect(answer.status).toBe(200);
  });

  test('5.3 an endpoint without parameters takes the signed body {}', async () => {
    const answer = await api(getSandbox(), 'POST', '/v2/accounts/list', '{}');
    expect(answer.status).toBe(200);
  });

  test('5.3 an endpoint without parameters refuses an empty body', async () => {
    const answer = await raw(getSandbox(), 'POST', '/v2/accounts/list', {
      headers: {
        'Content-Type': 'application/json',
        'X-Processing-Key': 'kat-api-key',
        'X-Processing-Signature': EMPTY_BODY_SIGNATURE,
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe('bad_content_format');
  });

  test('5.3 an endpoint without parameters still requires Content-Type application/json', async () => {
    const answer = await raw(getSandbox(), 'POST', '/v2/accounts/list', {
      body: '{}',
      headers: {
        'X-Processing-Key': 'kat-api-key',
        'X-Processing-Signature': hmacHex('kat-secret-key', '{}'),
      },
    });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe('bad_content_format');
  });

  test('5.4 a missing or wrong header is rejected with 403 and a human-readable error', async () => {
    const answer = await call({ 'X-Processing-Key': 'wrong', 'X-Processing-Signature': KAT_SIGNATURE });
    expect(answer.status).toBe(403);
    expect(Object.keys(answer.json).sort()).toEqual(['code', 'error']);
    expect(typeof answer.json.error).toBe('string');
    expect(answer.text).not.toContain('kat-secret-key');
    expect(answer.text).not.toContain('kat-api-key');
  });

  test('5.5 header names are case-insensitive', async () => {
    const lower = await call({ 'x-processing-key': 'kat-api-key', 'x-processing-signature': KAT_SIGNATURE });
    const upper = await call({ 'X-PROCESSING-KEY': 'kat-api-key', 'X-PROCESSING-SIGNATURE': KAT_SIGNATURE });
    expect([lower.status, upper.status]).toEqual([200, 200]);
  });
});

describe('7.2 403 Forbidden (header authorization)', () => {
  test('Signature header wrong: bad_header_signature', async () => {
    const answer = await call({
      'X-Processing-Key': 'kat-api-key',
      'X-Processing-Signature': 'ab'.repeat(64),
    });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ error: expect.any(String), code: 'bad_header_signature' });
  });

  test('Signature header absent: required_header_signature', async () => {
    const answer = await call({ 'X-Processing-Key': 'kat-api-key' });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ error: expect.any(String), code: 'required_header_signature' });
  });

  test('Key header wrong: bad_header_key', async () => {
    const answer = await call({
      'X-Processing-Key': 'sandbox-api-key',
      'X-Processing-Signature': KAT_SIGNATURE,
    });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ error: expect.any(String), code: 'bad_header_key' });
  });

  test('Key header absent: required_header_key', async () => {
    const answer = await call({ 'X-Processing-Signature': KAT_SIGNATURE });
    expect(answer.status).toBe(403);
    expect(answer.json).toEqual({ error: expect.any(String), code: 'required_header_key' });
  });

  test('checks run in the order key absent, key wrong, signature absent, signature wrong', async () => {
    expect((await call({})).json.code).toBe('required_header_key');
    expect((await call({ 'X-Processing-Key': 'wrong' })).json.code).toBe('bad_header_key');
    expect((await call({ 'X-Processing-Key': 'kat-api-key' })).json.code).toBe('required_header_signature');
  });
});

describe('7.1 bad_content_format and its order after authentication', () => {
  const signedHeaders = (body: string, contentType?: string) => ({
    ...(contentType && { 'Content-Type': contentType }),
    'X-Processing-Key': 'kat-api-key',
    'X-Processing-Signature': hmacHex('kat-secret-key', body),
  });

  test('Body not valid JSON: 400 bad_content_format', async () => {
    const body = '{"currency_from": "BTC",';
    const answer = await raw(getSandbox(), 'POST', '/v2/currencies/rates', {
      body,
      headers: signedHeaders(body, 'application/json'),
    });
    expect(answer.status).toBe(400);
    expect(answer.json).toEqual({ error: expect.any(String), code: 'bad_content_format' });
  });

  test('Content-Type not application/json: 400 bad_content_format', async () => {
    const answer = await raw(getSandbox(), 'POST', '/v2/currencies/rates', {
      body: KAT_BODY,
      headers: signedHeaders(KAT_BODY, 'text/plain'),
    });
    expect(answer.status).toBe(400);
    expect(answer.json.code).toBe('bad_content_format');
  });

  test('a Content-Type parameter such as charset is accepted', async () => {
    const answer = await raw(getSandbox(), 'POST', '/v2/currencies/rates', {
      body: KAT_BODY,
      headers: signedHeaders(KAT_BODY, 'Application/JSON; charset=utf-8'),
    });
    expect(answer.status).toBe(200);
  });

  test('a JSON body that is not an object is bad_content_format', async () => {
    const answer = await raw(getSandbox(), 'POST', '/v2/accounts/list', {
      body: '[]',
      headers: signedHeaders('[]', 'application/json'),
    });
    expect(answer.json.code).toBe('bad_content_format');
  });

  test('authentication is checked before the content: an unsigned bad body is 403', async () => {
    const answer = await raw(getSandbox(), 'POST', '/v2/currencies/rates', {
      body: 'not json',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(answer.status).toBe(403);
    expect(answer.json.code).toBe('required_header_key');
  });

  test('an unknown /v2 path is 404 once authenticated, 403 before', async () => {
    const sandbox = getSandbox();
    expect((await api(sandbox, 'POST', '/v2/nothing/here')).json).toEqual({
      error: 'Not found',
      code: 'not_found',
    });
    expect((await api(sandbox, 'POST', '/v2/invoices/x/cancel')).status).toBe(404); // no trailing slash
    expect((await raw(sandbox, 'POST', '/v2/nothing/here', { body: '{}' })).status).toBe(403);
  });
});
