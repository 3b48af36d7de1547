// The console's one way to the API: same origin (the CSP allows no other), the token in a header and never in a
// URL, the store a platform token acts for in `Store-Id`, and every failure turned into an ApiError carrying the
// API's code and message to show as text.
import type { components, operations } from '../../../../client/api';

type Schemas = components['schemas'];
// Not every operation answers 200 (POST /stores answers 201 alone): the type asks, rather than indexes.
type Answer<K extends keyof operations> = operations[K]['responses'] extends {
  200: { content: { 'application/json': infer Body } };
}
  ? Body
  : never;
export type InvoiceView = Schemas['InvoiceView'];
export type InvoiceList = Schemas['InvoiceList'];
export type InvoiceStatus = InvoiceView['status'];
export type RefundView = Schemas['RefundView'];
export type Snapshot = Schemas['BalanceSnapshot'];
export type SnapshotList = Schemas['BalanceSnapshotList'];
export type DeliveryList = Answer<'listWebhookDeliveries'>;
export type Delivery = Answer<'resendWebhook'>;
export type ResentFailed = Answer<'resendFailedWebhooks'>;

/** What `GET /tokens/current` says of the token the console holds. */
export type CurrentToken = Schemas['CurrentToken'];
/** A store as the store routes answer it: never a key, token or secret. */
export type Store = Schemas['Store'];
export type StoreList = Schemas['StoreList'];
/** `POST /stores`: the store and its three secrets, answered this once. */
export type CreatedStore = Schemas['CreatedStore'];
/** `POST /stores/{id}/tokens/rotate`: the new tokens, answered this once, and when the previous ones stop. */
export type RotatedTokens = Schemas['RotatedTokens'];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

export interface Api {
  /** The store a platform token acts for, sent as `Store-Id`; undefined for a store's own admin token. */
  readonly store: string | undefined;
  get<T>(path: string, query?: Record<string, string | undefined>): Promise<T>;
  post<T>(path: string, body?: unknown): Promise<T>;
  patch<T>(path: string, body: unknown): Promise<T>;
  /** A page of an export: its text, and the URL of the next page that its `Link` header names, if any. */
  text(url: string): Promise<{ text: string; next: string | null }>;
}

/** `onRefused` hears of a 401 or 403, so that the console can ask for the token again. */
export function adminApi(token: string, onRefused: (error: ApiError) => void, store?: string): Api {
  const send = async (method: string, url: string, body?: unknown): Promise<Response> => {
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        cache: 'no-store',
        headers: {
          authorization: `Bearer ${token}`,
          ...(store === undefined ? {} : { 'store-id': store }),
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, 'network_error', 'The API could not be reached. Check the connection and retry.');
    }
    if (response.ok) return response;
    const error = apiError(response, await readJson(response));
    if (response.status === 401 || response.status === 403) onRefused(error);
    throw error;
  };
  const sendJson = async <T>(method: string, url: string, body?: unknown): Promise<T> =>
    (await readJson(await send(method, url, body))) as T;
  return {
    store,
    get: (path, query = {}) => sendJson('GET', withQuery(path, query)),
    post: (path, body) => sendJson('POST', path, body),
    patch: (path, body) => sendJson('PATCH', path, body),
    text: async (url) => {
      const response = await send('GET', url);
      return { text: await response.text(), next: nextLink(response.headers.get('link')) };
    },
  };
}

/** The `rel="next"` target of a `Link` header (RFC 8288), as our exports write it. */
function nextLink(header: string | null): string | null {
  return header ? (/<([^>]*)>\s*;\s*rel="next"/.exec(header)?.[1] ?? null) : null;
}

/** The path of one invoice's route, its id encoded as one path segment. */
export function invoicePath(foreignId: string, ...rest: string[]): string {
  return ['/invoices', encodeURIComponent(foreignId), ...rest].join('/');
}

/** The path of one store's route, its id encoded as one path segment. */
export function storePath(storeId: string, ...rest: string[]): string {
  return ['/stores', encodeURIComponent(storeId), ...rest].join('/');
}

/** `path?query`, with the parameters given a value. */
export function withQuery(path: string, query: Record<string, string | undefined>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, value);
  const search = params.toString();
  return search ? `${path}?${search}` : path;
}

async function readJson(response: Response): Promise<unknown> {
  try {
    return await response.json();
  } catch {
    return undefined;
  }
}

/** Our `{error: {code, message, fields}}`, or API Gateway's own `{message}`, or just the status. */
function apiError(response: Response, answer: unknown): ApiError {
  const body = (answer ?? {}) as {
    error?: { code?: string; message?: string; fields?: Record<string, string> };
  };
  if (body.error?.code) {
    return new ApiError(response.status, body.error.code, body.error.message ?? '', body.error.fields);
  }
  const gatewayMessage = (answer as { message?: unknown } | undefined)?.message;
  return new ApiError(
    response.status,
    `http_${response.status}`,
    typeof gatewayMessage === 'string' ? gatewayMessage : `The API answered ${response.status}.`,
  );
}
