// Every route against a service that never answers: what each must do, and the records they act on.
import { CSV_CONTENT_TYPE } from '../../http/csv';
import { routes, type RouteFunctionName } from '../../lib/routes';
import { invoiceCallbackBody, signBody } from './callbacks';
import { checkoutBody, refundBody, type Answer, type ApiCaller, type Harness } from './local-stack';
import { waitFor } from './wait';

export interface RouteCall {
  method: 'GET' | 'POST';
  path: string;
  token?: 'storefront' | 'admin';
  body?: unknown;
  headers?: Record<string, string>;
  /**
   * True when the route must ask the service, so a hang reaches it (a 504); false when it answers as usual. Left out
   * for a route called at its bare path: it answers our own JSON in time, whatever it says.
   */
  callsService?: boolean;
  /** The content type of its usual answer, when it is not JSON (an export's CSV). */
  answers?: string;
}

const INVOICE = 'hung-invoice';
const PAID_INVOICE = 'hung-paid-invoice';
const REFUND = 'hung-refund';
/** The callback's own invoice: were it the cancelled one, the route that got there first would decide the cancel's answer. */
const CALLBACK_INVOICE = 'hung-callback-invoice';

/**
 * An open invoice, a paid one with money left to refund, an open refund, and an invoice for the callback, for the
 * routes that act on one; created while the service still answers.
 */
export async function createOpenRecords(harness: Harness): Promise<void> {
  const invoice = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(INVOICE),
  });
  const paid = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(PAID_INVOICE),
  });
  const refund = await harness.api('POST', '/refunds', { token: 'admin', body: refundBody(REFUND) });
  const called = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(CALLBACK_INVOICE),
  });
  if ([invoice, paid, refund, called].some(({ status }) => status !== 201)) {
    throw new Error(
      `records not created: ${invoice.status} ${paid.status} ${refund.status} ${called.status}`,
    );
  }
  const payment = await harness.control('POST', `/invoices/${PAID_INVOICE}/pay`, { kind: 'full' });
  const credited = await waitFor(
    () => harness.api('GET', `/invoices/${PAID_INVOICE}`, { token: 'storefront' }),
    ({ body }) => body.refundable !== null && body.refundable !== undefined,
    30_000,
  );
  if (payment.status !== 200 || !credited.body.refundable) {
    throw new Error(`invoice not paid and credited: ${payment.status} ${JSON.stringify(credited.body)}`);
  }
}

/** From now on the service reads every request and never answers. */
export async function hangEveryOperation(harness: Harness): Promise<void> {
  const { status } = await harness.control('POST', '/faults', { path: '/v2/*', kind: 'hang' });
  if (status !== 201) throw new Error(`hang not accepted: ${status}`);
}

/**
 * One call per route: those written here or given in `more`, and any other route at its bare path with its scope's
 * token.
 */
export function everyRouteCall(
  harness: Harness,
  more: Partial<Record<RouteFunctionName, RouteCall>> = {},
): Record<RouteFunctionName, RouteCall> {
  const written = { ...writtenCalls(harness), ...more };
  return Object.fromEntries(
    routes.map(({ name, method, path, access }) => [
      name,
      written[name] ?? { method, path, token: access === 'service' ? undefined : access },
    ]),
  ) as Record<RouteFunctionName, RouteCall>;
}

/** The routes that need a record, a body or a query, or whose answer to a hang is known. */
function writtenCalls(harness: Harness): Partial<Record<RouteFunctionName, RouteCall>> {
  const callback = invoiceCallbackBody(CALLBACK_INVOICE, 'pending');
  const { apiKey, secretKey } = harness.stack.sandbox!;
  return {
    checkout: {
      method: 'POST',
      path: '/checkout',
      token: 'storefront',
      body: checkoutBody('hung-checkout'),
      callsService: true,
    },
    'get-invoice': { method: 'GET', path: `/invoices/${INVOICE}`, token: 'storefront', callsService: false },
    'list-invoices': { method: 'GET', path: '/invoices', token: 'admin', callsService: false },
    'cancel-invoice': {
      method: 'POST',
      path: `/invoices/${INVOICE}/cancel`,
      token: 'admin',
      callsService: true,
    },
    rates: { method: 'GET', path: '/rates?from=BTC&to=EUR', token: 'storefront', callsService: true },
    pairs: { method: 'GET', path: '/pairs?from=BTC&to=EUR', token: 'storefront', callsService: true },
    // Cold: no pairs of USD are cached yet, so it asks the service.
    'checkout-options': {
      method: 'GET',
      path: '/checkout/options?amount=10&currency=USD',
      token: 'storefront',
      callsService: true,
    },
    'get-balances': { method: 'GET', path: '/balances?live=true', token: 'admin', callsService: true },
    'balance-history': { method: 'GET', path: '/balances/history', token: 'admin', callsService: false },
    'refund-invoice': {
      method: 'POST',
      path: `/invoices/${PAID_INVOICE}/refunds`,
      token: 'admin',
      body: { foreign_id: 'hung-order-refund', address: refundBody('unused').address },
      callsService: true,
    },
    'create-refund': {
      method: 'POST',
      path: '/refunds',
      token: 'admin',
      body: refundBody('hung-refund-new'),
      callsService: true,
    },
    'list-refunds': { method: 'GET', path: '/refunds', token: 'admin', callsService: false },
    'export-invoices': {
      method: 'GET',
      path: '/exports/invoices.csv',
      token: 'admin',
      callsService: false,
      answers: CSV_CONTENT_TYPE,
    },
    'export-refunds': {
      method: 'GET',
      path: '/exports/refunds.csv',
      token: 'admin',
      callsService: false,
      answers: CSV_CONTENT_TYPE,
    },
    'get-refund': { method: 'GET', path: `/refunds/${REFUND}`, token: 'admin', callsService: true },
    'lookup-transaction': {
      method: 'GET',
      path: `/transactions?foreign_id=${REFUND}`,
      token: 'admin',
      callsService: true,
    },
    callbacks: {
      method: 'POST',
      path: '/callbacks',
      body: callback,
      headers: { 'x-processing-key': apiKey, 'x-processing-signature': signBody(secretKey, callback) },
      callsService: false,
    },
    openapi: { method: 'GET', path: '/openapi.json', callsService: false },
  };
}

/** Makes every call at once, so that the whole run lasts as long as the slowest route. */
export async function callEveryRoute(
  harness: Harness,
  api: ApiCaller,
  more: Partial<Record<RouteFunctionName, RouteCall>> = {},
): Promise<Array<{ name: string; call: RouteCall; answer: Answer }>> {
  return Promise.all(
    Object.entries(everyRouteCall(harness, more)).map(async ([name, call]) => {
      const { method, path, token, body, headers } = call;
      return { name, call, answer: await api(method, path, { token, body, headers }) };
    }),
  );
}

/**
 * Each route answered with our own JSON, never with the gateway's bare 500 for a function that overran its
 * timeout: a route that asks the service with a 504, the others as usual, and one called at its bare path with
 * anything but a 500.
 */
export function expectAnsweredInTime(results: Awaited<ReturnType<typeof callEveryRoute>>): void {
  const summary = (answer: Answer) => ({
    status: answer.status,
    type: answer.headers.get('content-type'),
    code: answer.body?.error?.code,
  });
  const json = 'application/json';
  const expected = (call: RouteCall, answer: Answer) => {
    if (call.callsService) return { status: 504, type: json, code: 'processor_timeout' };
    if (call.callsService === false) return { status: 200, type: call.answers ?? json, code: undefined };
    return { ...summary(answer), status: answer.status === 500 ? 'not 500' : answer.status, type: json };
  };
  expect(Object.fromEntries(results.map(({ name, answer }) => [name, summary(answer)]))).toEqual(
    Object.fromEntries(results.map(({ name, call, answer }) => [name, expected(call, answer)])),
  );
}
