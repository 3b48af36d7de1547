// The route's JSON body reading, through the one middleware chain, with a real event and context.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { isLosslessNumber } from 'lossless-json';
import { apiRoute } from '../../http/route';
import { lambdaContext } from '../../local/lambda-context';
import { defaultStoreTokens, unlimited } from '../support/memory-stores';
import { captureOutput, type CapturedOutput } from '../support/output';

const STOREFRONT_TOKEN = 'storefront-token';
const TOKENS = { storefront: [STOREFRONT_TOKEN], admin: ['admin-token'] };

/** Echoes what the route made of the body: numbers as their exact tokens. */
const echo = apiRoute(
  {
    route: { access: 'storefront' },
    tokens: defaultStoreTokens(TOKENS),
    limits: unlimited,
    input: ({ body }) => body,
  },
  async (body) => ({
    status: 200,
    body: { body: JSON.parse(JSON.stringify(body, (_key, v) => (isLosslessNumber(v) ? `#${v}` : v))) },
  }),
);

async function post(body: string, contentType = 'application/json') {
  const event = {
    version: '2.0',
    routeKey: 'POST /echo',
    rawPath: '/echo',
    rawQueryString: '',
    headers: { authorization: `Bearer ${STOREFRONT_TOKEN}`, 'content-type': contentType },
    body,
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  const result = (await echo(event, lambdaContext('echo', 10_000))) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, body: JSON.parse(result.body as string) };
}

let output: CapturedOutput;
beforeEach(() => {
  output = captureOutput(); // refusals log a warning each
});
afterEach(() => output.restore());

describe('content type', () => {
  it.each([
    'application/json',
    'application/json; charset=utf-8',
    'Application/JSON',
    'application/json ;x=y',
  ])('%s is JSON', async (contentType) => {
    expect(await post('{"a":"x"}', contentType)).toEqual({ status: 200, body: { body: { a: 'x' } } });
  });

  it.each([
    'application/json-patch+json',
    'application/json-seq',
    'application/jsonp',
    'application/json5',
    'application/json+x',
    'application/ld+json',
    'text/json',
  ])('%s is not', async (contentType) => {
    const answer = await post('{"a":"x"}', contentType);
    expect(answer.status).toBe(415);
    expect(answer.body.error.code).toBe('unsupported_media_type');
  });
});

describe('duplicate keys are refused, with or without a number in the body', () => {
  it.each([
    ['{"a":"x","a":"y"}'],
    ['{"a":"x","a":"x"}'],
    ['{"a":1,"a":2}'],
    ['{"a":1,"a":1}'],
    ['{"a":"x","\\u0061":"y"}'],
    ['{"o":{"k":"1","k":"2"},"n":3}'],
    ['{"list":[{"k":null,"k":null}]}'],
    ['{"__proto__":"x","__proto__":"y"}'],
  ])('%s: 400 invalid_json naming duplicate keys', async (text) => {
    const answer = await post(text);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_json');
    expect(answer.body.error.message).toMatch(/duplicate keys/);
  });

  it.each([
    ['{"a":{"a":"x"},"b":[{"a":"1"},{"a":"2"}]}', { a: { a: 'x' }, b: [{ a: '1' }, { a: '2' }] }],
    ['{"a":"\\":","b":["\\"",":","\\\\"],"c":"\\\\"}', { a: '":', b: ['"', ':', '\\'], c: '\\' }],
    ['{ "a" : "b" , "c" : { } }', { a: 'b', c: {} }],
    [
      '{"amount":0.12345678901234567890,"x":{"amount":1}}',
      { amount: '#0.12345678901234567890', x: { amount: '#1' } },
    ],
  ])('%s, where a key repeats only in another object or inside strings, is read', async (text, expected) => {
    expect(await post(text)).toEqual({ status: 200, body: { body: expected } });
  });
});

describe('size and depth', () => {
  it.each([
    ['numbers', '0'],
    ['nulls', 'null'],
    ['strings', '"x"'],
  ])('an array of 500,000 %s is read, not a stack overflow', async (_name, element) => {
    const answer = await post(`{"a":[${Array(500_000).fill(element).join(',')}]}`);
    expect(answer.status).toBe(200);
    expect(answer.body.body.a).toHaveLength(500_000);
  });

  it.each([
    ['with a number', '1'],
    ['without a number', '"x"'],
  ])('a body nested 10,000 deep %s: 400 invalid_json saying so', async (_name, leaf) => {
    const answer = await post(`{"a":${'['.repeat(10_000)}${leaf}${']'.repeat(10_000)}}`);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_json');
    expect(answer.body.error.message).toMatch(/nested/);
    expect(answer.body.error.message).not.toMatch(/duplicate/);
  });

  it('32 levels are read, 33 are refused', async () => {
    const levels = (count: number) => `{"a":${'['.repeat(count - 1)}1${']'.repeat(count - 1)}}`;
    expect((await post(levels(32))).status).toBe(200);
    expect((await post(levels(33))).status).toBe(400);
  });
});
