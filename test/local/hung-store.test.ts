// Rule 5 for DynamoDB: a store endpoint that never answers gets our JSON error in time, not the gateway's bare 500.
import { routes, type RouteFunctionName } from '../../lib/routes';
import { callEveryRoute, type RouteCall } from '../support/hung-service';
import { expectJsonErrors, stackWithHungEndpoint } from '../support/silent-endpoint';

const stack = stackWithHungEndpoint('AWS_ENDPOINT_URL_DYNAMODB');

test('a hung DynamoDB: reading an invoice answers a JSON error within the function timeout', async () => {
  const harness = stack();
  const answers = await Promise.all(
    ['hung-store-1', 'hung-store-2'].map((id) =>
      harness.api('GET', `/invoices/${id}`, { token: 'storefront' }),
    ),
  );

  expectJsonErrors(answers);
}, 40_000);

/** Calls that reach the table for the routes hung-service.ts calls at their bare path (which a 400 answers first). */
const TABLE_CALLS: Partial<Record<RouteFunctionName, RouteCall>> = {
  'public-invoice': {
    method: 'GET',
    path: '/public/invoices/hung-store-1',
    headers: { 'x-client-secret': `cs_${'a'.repeat(43)}` },
  },
  'list-webhook-deliveries': { method: 'GET', path: '/webhooks/deliveries', token: 'admin' },
  'resend-webhook': {
    method: 'POST',
    path: `/webhooks/deliveries/evt_${'h'.repeat(24)}/resend`,
    token: 'admin',
  },
  'resend-failed-webhooks': { method: 'POST', path: '/webhooks/deliveries/resend-failed', token: 'admin' },
};

test('a hung DynamoDB: every route that uses the table answers our JSON error in time, the others as usual', async () => {
  const harness = stack();
  const results = await callEveryRoute(harness, harness.api, TABLE_CALLS);

  // Each call written for the table reached it: the hang, not the input, is what it answers.
  for (const { name, answer } of results) {
    if (name in TABLE_CALLS) expect({ name, status: answer.status >= 500 }).toEqual({ name, status: true });
  }
  // These read the table only to find a store's token; the default store's tokens, used here, need no read.
  const tokenLookupOnly = new Set<string>(['rates', 'pairs', 'checkout-options', 'health', 'current-token']);
  const usesTable = new Set(
    routes
      .filter((route) => route.data.table.length > 0 && !tokenLookupOnly.has(route.name))
      .map((route) => route.name),
  );
  const summary = ({ name, answer }: (typeof results)[number]) => ({
    name,
    type: answer.headers.get('content-type'),
    ourError: usesTable.has(name as RouteFunctionName) ? typeof answer.body?.error?.code : 'n/a',
  });
  expect(results.map(summary)).toEqual(
    results.map(({ name }) => ({
      name,
      type: 'application/json',
      ourError: usesTable.has(name as RouteFunctionName) ? 'string' : 'n/a',
    })),
  );
}, 60_000);
