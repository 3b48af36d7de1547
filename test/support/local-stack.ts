import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../../client/api';
import { MAX_STORE_REQUESTS_PER_SECOND } from '../../domain/request-limits';
import { startLocalStack, type LocalStack, type LocalStackOptions } from '../../local/stack';
import { expectDocumented } from './contract';
import { waitFor } from './wait';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** Calls the plugin through a gateway; `token` may be 'storefront', 'admin', 'platform', a literal, or omitted. */
export type ApiCaller = <T = any>(
  method: string,
  path: string,
  options?: {
    token?: 'storefront' | 'admin' | 'platform' | (string & {});
    body?: unknown;
    headers?: Record<string, string>;
  },
) => Promise<Answer<T>>;

export interface Harness {
  stack: LocalStack;
  /** Calls the plugin through the local gateway. */
  api: ApiCaller;
  /** The same calls, to another gateway in front of the same stack (for example one serving the bundles). */
  apiAt(baseUrl: string): ApiCaller;
  /** The typed client a store makes from openapi.json (client/api.ts), holding a token of this scope. */
  client(token: 'storefront' | 'admin'): Client<paths>;
  /** Calls the sandbox's control API. */
  control<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>>;
  /** The sandbox's log of /v2 requests for a path (exact, or a prefix ending in *). */
  upstreamRequests(
    path: string,
  ): Promise<Array<{ method: string; path: string; status: number; body: string }>>;
  close(): Promise<void>;
}

/** Boots the whole local stack (sandbox, dynalite, Secrets Manager endpoint, gateway) for one test file. */
export async function startHarness(options: LocalStackOptions = {}): Promise<Harness> {
  const stack = await startLocalStack({
    schedule: false,
    ...options,
    // Every store may make as many requests a second as a store can be given: only the limits' tests set less.
    env: { STORE_REQUESTS_PER_SECOND: String(MAX_STORE_REQUESTS_PER_SECOND), ...options.env },
  });
  const tokens: Record<string, string> = {
    storefront: stack.storefrontToken,
    admin: stack.adminToken,
    platform: stack.platformToken,
  };
  const call = async (url: string, method: string, body: unknown, headers: Record<string, string>) => {
    const response = await fetch(url, {
      method,
      headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers } as Answer;
  };
  // Every answer of the plugin must be one openapi.json describes.
  const apiAt =
    (baseUrl: string): ApiCaller =>
    async (method, path, { token, body, headers = {} } = {}) => {
      const url = `${baseUrl}${path}`;
      const answer = await call(url, method, body, {
        ...(token ? { authorization: `Bearer ${tokens[token] ?? token}` } : {}),
        ...headers,
      });
      expectDocumented(method, url, answer.status, answer.body);
      return answer;
    };
  const client = (token: 'storefront' | 'admin') => {
    const typed = createClient<paths>({
      baseUrl: stack.url,
      headers: { authorization: `Bearer ${tokens[token]}` },
    });
    typed.use({
      onResponse: async ({ request, response }) => {
        const text = await response.clone().text();
        expectDocumented(request.method, request.url, response.status, text ? JSON.parse(text) : undefined);
      },
    });
    return typed;
  };
  return {
    stack,
    api: apiAt(stack.url),
    apiAt,
    client,
    control: (method, path, body) => call(`${stack.sandbox!.url}/_sandbox${path}`, method, body, {}),
    upstreamRequests: async (path) => {
      const { body } = await call(
        `${stack.sandbox!.url}/_sandbox/requests?path=${encodeURIComponent(path)}`,
        'GET',
        undefined,
        {},
      );
      return body.requests;
    },
    close: () => stack.close(),
  };
}

/** A valid checkout body; override fields per test. */
export function checkoutBody(foreignId: string, overrides: Record<string, unknown> = {}) {
  return {
    foreign_id: foreignId,
    amount: '25.50',
    currency: 'EUR',
    sender_currency: 'BTC',
    title: `Order ${foreignId}`,
    email: 'customer@example.com',
    url_success: 'https://shop.example/ok',
    url_failed: 'https://shop.example/failed',
    ...overrides,
  };
}

/** Checks out an order as a storefront does, and expects it made (201); answers the invoice. */
export async function checkoutMade(
  harness: Harness,
  foreignId: string,
  overrides: Record<string, unknown> = {},
) {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId, overrides),
  });
  expect(created.status).toBe(201);
  return created.body;
}

/** An order checked out with a timer and paid in full: its view once the payment service has credited it. */
export async function paidOrder(
  harness: Harness,
  foreignId: string,
  overrides: Record<string, unknown> = {},
) {
  await checkoutMade(harness, foreignId, { timer: true, ...overrides });
  expect((await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' })).status).toBe(200);
  const paid = await waitFor(
    () => harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' }),
    ({ body }) => body.status === 'paid' && body.net_amount !== null,
    30_000,
  );
  return paid.body;
}

export function refundBody(foreignId: string, overrides: Record<string, unknown> = {}) {
  return {
    foreign_id: foreignId,
    debited_currency: 'EUR',
    currency: 'BTC',
    debited_amount: '10',
    address: 'bc1qrefundaddress0000000000000000000000',
    ...overrides,
  };
}
