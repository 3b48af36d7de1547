// The bearer check of apiRoute, with a token source whose answers the test controls.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Tokens } from '../../domain/ports';
import { apiRoute } from '../../http/route';
import { balanceHistoryRoute, getInvoiceRoute } from '../../lib/routes';
import { lambdaContext } from '../../local/lambda-context';
import { captureOutput, type CapturedOutput } from '../support/output';

let output: CapturedOutput;
beforeEach(() => (output = captureOutput())); // refusals log a warning
afterEach(() => output.restore());

/** Serves `held` until a refresh, which answers `fresh`. */
function tokenSource(held: Tokens, fresh: Tokens = held) {
  const source = { get: jest.fn(async () => held), refresh: jest.fn(async () => (held = fresh)) };
  return source;
}

const handlerFor = (
  route: typeof getInvoiceRoute | typeof balanceHistoryRoute,
  tokens: ReturnType<typeof tokenSource>,
) => apiRoute({ route, tokens, input: () => undefined }, async () => ({ status: 200, body: {} }));

async function call(handler: ReturnType<typeof handlerFor>, token: string): Promise<number> {
  const event = {
    routeKey: 'GET /test',
    rawPath: '/test',
    headers: { authorization: `Bearer ${token}` },
    isBase64Encoded: false,
  } as unknown as APIGatewayProxyEventV2;
  const result = (await handler(event, lambdaContext('test', 25_000))) as APIGatewayProxyStructuredResultV2;
  return result.statusCode!;
}

const before = { storefront: ['s1'], admin: ['a1'] };
const rotating = { storefront: ['s2', 's1'], admin: ['a1'] };

test('the current token and the previous one during the overlap open the route, with no second look', async () => {
  const tokens = tokenSource(rotating);
  const storefront = handlerFor(getInvoiceRoute, tokens);
  expect(await call(storefront, 's2')).toBe(200);
  expect(await call(storefront, 's1')).toBe(200);
  expect(tokens.refresh).not.toHaveBeenCalled();
});

test('a token the container does not know yet makes it look again, and a newly rotated one is accepted at once', async () => {
  const tokens = tokenSource(before, rotating);
  expect(await call(handlerFor(getInvoiceRoute, tokens), 's2')).toBe(200);
  expect(tokens.refresh).toHaveBeenCalledTimes(1);
});

test('a token that matches none after a second look is refused with 401', async () => {
  const tokens = tokenSource(before);
  expect(await call(handlerFor(getInvoiceRoute, tokens), 'nope')).toBe(401);
  expect(tokens.refresh).toHaveBeenCalledTimes(1);
});

test('the storefront token on an admin route is refused without a second look', async () => {
  const tokens = tokenSource(before);
  expect(await call(handlerFor(balanceHistoryRoute, tokens), 's1')).toBe(403);
  expect(tokens.refresh).not.toHaveBeenCalled();
});

test('the admin token opens a storefront route, with no second look', async () => {
  const tokens = tokenSource(before);
  expect(await call(handlerFor(getInvoiceRoute, tokens), 'a1')).toBe(200);
  expect(tokens.refresh).not.toHaveBeenCalled();
});
