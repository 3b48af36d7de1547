import { httpApiEvent, type HttpApiRequest } from '../../local/lambda-event';

const request = (overrides: Partial<HttpApiRequest>): HttpApiRequest => ({
  method: 'GET',
  routeKey: 'GET /transactions',
  path: '/transactions',
  headers: { host: 'api.shop.example', 'user-agent': 'test' },
  sourceIp: '203.0.113.7',
  protocol: 'HTTP/1.1',
  ...overrides,
});

test('repeated query parameters are joined with commas, as API Gateway does', () => {
  const event = httpApiEvent(request({ query: 'id=a&id=b&currency=EUR' }));
  expect(event.rawQueryString).toBe('id=a&id=b&currency=EUR');
  expect(event.queryStringParameters).toEqual({ id: 'a,b', currency: 'EUR' });
});

test('no query, path parameters or body: those fields are left out', () => {
  const event = httpApiEvent(request({ pathParameters: {}, body: Buffer.alloc(0) }));
  expect(event.queryStringParameters).toBeUndefined();
  expect(event.pathParameters).toBeUndefined();
  expect(event.body).toBeUndefined();
  expect(event.isBase64Encoded).toBe(false);
});

test('a JSON body arrives as text, any other as base64', () => {
  const json = httpApiEvent(
    request({ headers: { 'content-type': 'application/json' }, body: Buffer.from('{"a":"é"}') }),
  );
  expect(json).toMatchObject({ body: '{"a":"é"}', isBase64Encoded: false });
  const binary = httpApiEvent(
    request({ headers: { 'content-type': 'application/octet-stream' }, body: Buffer.from([0, 255]) }),
  );
  expect(binary).toMatchObject({ body: 'AP8=', isBase64Encoded: true });
});

test('the request context names the route, the caller and the time', () => {
  const before = Date.now();
  const event = httpApiEvent(request({ pathParameters: { foreign_id: 'order-1' } }));
  expect(event.routeKey).toBe('GET /transactions');
  expect(event.pathParameters).toEqual({ foreign_id: 'order-1' });
  expect(event.requestContext).toMatchObject({
    routeKey: 'GET /transactions',
    domainName: 'api.shop.example',
    stage: '$default',
    http: { method: 'GET', path: '/transactions', sourceIp: '203.0.113.7', userAgent: 'test' },
  });
  expect(event.requestContext.timeEpoch).toBeGreaterThanOrEqual(before);
});
