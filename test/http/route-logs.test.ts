// What apiRoute logs: every line names the invocation, and the foreign_id once the input is valid.
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { NotFoundError } from '../../domain/errors';
import { foreignIdInput } from '../../http/inputs';
import { apiRoute, type ApiRequest } from '../../http/route';
import { lambdaContext } from '../../local/lambda-context';
import { log } from '../../observability/log';
import { defaultStoreTokens, unlimited } from '../support/memory-stores';

const TOKENS = { storefront: ['storefront-token'], admin: ['admin-token'] };
const tokens = defaultStoreTokens(TOKENS);

let lines: Array<Record<string, unknown>>;
beforeEach(() => {
  lines = [];
  const keep = (text: string) => lines.push(JSON.parse(text));
  jest.spyOn(console, 'log').mockImplementation(keep);
  jest.spyOn(console, 'error').mockImplementation(keep);
});
afterEach(() => jest.restoreAllMocks());

/** A route that reads its input with `input`, logs while it works, then finds nothing. */
const notFoundRoute = (input: (request: ApiRequest) => unknown) =>
  apiRoute({ route: { access: 'storefront' }, tokens, limits: unlimited, input }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    log.info('looking');
    throw new NotFoundError('The invoice');
  });

function event(request: Partial<APIGatewayProxyEventV2>, token = 'storefront-token'): APIGatewayProxyEventV2 {
  return {
    routeKey: 'GET /invoices/{foreign_id}',
    rawPath: '/x',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    isBase64Encoded: false,
    ...request,
  } as APIGatewayProxyEventV2;
}

test("every line of a request carries its request id, function, cold start, route and the path's foreign_id", async () => {
  const handler = notFoundRoute(foreignIdInput);
  const context = lambdaContext('route-logs-path', 10_000);

  await handler(event({ pathParameters: { foreign_id: 'order-1' } }), context);

  const common = {
    requestId: context.awsRequestId,
    functionName: 'route-logs-path',
    coldStart: true,
    route: 'GET /invoices/{foreign_id}',
    foreignId: 'order-1',
  };
  expect(lines.map(({ time: _time, ...line }) => line)).toEqual([
    { level: 'info', message: 'looking', ...common },
    {
      level: 'warn',
      message: 'request refused',
      ...common,
      errorType: 'NotFoundError',
      errorMessage: 'The invoice was not found',
      status: 404,
      code: 'not_found',
    },
  ]);
});

test.each([
  ['the body', { body: '{"foreign_id":"order-2","amount":"1"}' }],
  ['the query', { queryStringParameters: { foreign_id: 'order-2' } }],
])('a foreign_id in %s is logged once the input is valid', async (_where, request) => {
  await notFoundRoute(() => 'valid')(event(request), lambdaContext('route-logs-body', 10_000));

  expect(lines.map((line) => line.foreignId)).toEqual(['order-2', 'order-2']);
});

test('an input that is refused logs no foreign_id: nothing unvalidated is written', async () => {
  await notFoundRoute(foreignIdInput)(
    event({ pathParameters: { foreign_id: '../../etc' } }),
    lambdaContext('route-logs-refused', 10_000),
  );

  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({
    message: 'request refused',
    status: 400,
    route: 'GET /invoices/{foreign_id}',
  });
  expect(lines[0]).not.toHaveProperty('foreignId');
});

test("only a foreign_id's own form is logged, even where the route's input does not check it", async () => {
  const long = 'x'.repeat(65);
  await notFoundRoute(() => 'valid')(
    event({ queryStringParameters: { foreign_id: long } }),
    lambdaContext('route-logs-form', 10_000),
  );

  expect(lines.map((line) => line.foreignId)).toEqual([undefined, undefined]);
});

test('a refused token: the line names the request, and no token is in it', async () => {
  const context = lambdaContext('route-logs-auth', 10_000);
  await notFoundRoute(foreignIdInput)(
    event({ pathParameters: { foreign_id: 'order-1' } }, 'wrong-token'),
    context,
  );

  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ requestId: context.awsRequestId, status: 401 });
  expect(JSON.stringify(lines)).not.toContain('wrong-token');
});
