// The local gateway's access lines: one per request, what `npm start` prints.
import type { Context } from 'aws-lambda';
import { startGateway, type HttpHandler } from '../../local/gateway';
import type { Listening } from '../../local/listen';
import type { Route } from '../../lib/routes';

const facts = { data: { table: [] }, secrets: [], storeSecrets: 'none', concurrency: 'shared' } as const;
const itemRoute: Route = { method: 'GET', path: '/items/{id}', name: 'item', access: 'storefront', ...facts };
const failingRoute: Route = { method: 'GET', path: '/fails', name: 'fails', access: 'admin', ...facts };
const callbackRoute: Route = { method: 'POST', path: '/callbacks', name: 'cb', access: 'service', ...facts };

const seenRequestIds: string[] = [];
const answer = (status: number, body: unknown) => ({ statusCode: status, body: JSON.stringify(body) });
const itemHandler: HttpHandler = async (_event, context: Context) => {
  seenRequestIds.push(context.awsRequestId);
  return answer(200, { ok: true });
};
const callbackHandler: HttpHandler = async (event) => {
  const body = JSON.parse(event.body ?? '{}');
  return body.status === 'confirmed'
    ? answer(200, { outcome: 'applied' })
    : answer(403, { error: { code: 'invalid_signature' } });
};

let gateway: Listening;
let lines: string[];
beforeAll(async () => {
  gateway = await startGateway(
    [
      { route: itemRoute, handler: itemHandler },
      {
        route: failingRoute,
        handler: async () => {
          throw new Error('boom');
        },
      },
      { route: callbackRoute, handler: callbackHandler },
    ],
    0,
    { accessLog: (line) => lines.push(line) },
  );
});
afterAll(() => gateway.close());
beforeEach(() => (lines = []));

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

test('a line per request: time, method, path, status, duration and the request id the function saw', async () => {
  const response = await fetch(`${gateway.url}/items/a1?token=not-for-the-log`, {
    headers: { authorization: 'Bearer not-for-the-log-either' },
  });

  expect(response.status).toBe(200);
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d\\.\\d{3} GET /items/a1 200 \\d+ ms ${UUID}$`));
  expect(lines[0]).toContain(seenRequestIds.at(-1));
  expect(lines[0]).not.toContain('not-for-the-log');
});

test('a path no route serves, and a function that fails, have their lines too', async () => {
  await fetch(`${gateway.url}/nowhere`);
  await fetch(`${gateway.url}/fails`);

  expect(lines.map((line) => line.split(' ').slice(1, 4).join(' '))).toEqual([
    'GET /nowhere 404',
    'GET /fails 500',
  ]);
  expect(lines[0]).toMatch(/ ms -$/);
  expect(lines[1]).toMatch(new RegExp(` ms ${UUID}$`));
});

test('a callback line says what the callback said and what came of it', async () => {
  const post = (body: string) =>
    fetch(`${gateway.url}/callbacks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });

  await post(JSON.stringify({ type: 'invoice', foreign_id: 'order-1', status: 'confirmed' }));
  await post(JSON.stringify({ type: 'invoice', foreign_id: 'order-1\u001b[2J', status: 'pending' }));
  await post('not json');

  // Text is shown escaped, so a callback cannot write control characters to the terminal; what is not there is `?`.
  expect(lines.map((line) => line.replace(/^\S+ POST \/callbacks (\d+) .* ms \S+ /, '$1 '))).toEqual([
    '200 invoice order-1 confirmed: applied',
    '403 invoice order-1\\u001b[2J pending: invalid_signature',
    '500 ? ? ?: ?',
  ]);
});

test('the local gateway serves a page on GET only, beside the routes', async () => {
  const gateway = await startGateway([], 0, {
    pages: async (path) =>
      path === '/docs' ? { contentType: 'text/html; charset=utf-8', body: '<p>hi</p>' } : undefined,
  });
  try {
    const page = await fetch(`${gateway.url}/docs`);
    expect([page.status, page.headers.get('content-type'), await page.text()]).toEqual([
      200,
      'text/html; charset=utf-8',
      '<p>hi</p>',
    ]);
    expect((await fetch(`${gateway.url}/docs`, { method: 'POST' })).status).toBe(404);
  } finally {
    await gateway.close();
  }
});
