import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { API_FUNCTION_TIMEOUT_SECONDS, type Route } from '../lib/routes';
import { invokeWithTimeout } from './lambda-context';
import { httpApiEvent } from './lambda-event';
import { listen, type Listening } from './listen';

export type HttpHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<unknown>;

interface CompiledRoute {
  route: Route;
  pattern: RegExp;
  params: string[];
  handler: HttpHandler;
}

/**
 * A page or asset served locally beside the API, such as the reference page, or the demo store's backend's answer;
 * API Gateway serves none.
 */
export interface LocalPage {
  contentType: string;
  body: string | Buffer;
  headers?: Readonly<Record<string, string>>;
  /** 200 unless given. */
  status?: number;
}

/** The page at a URL path, if there is one there. */
export type LocalPages = (path: string) => Promise<LocalPage | undefined>;

/** A backend served beside the API, such as the demo store's: it answers the requests it takes, of any method. */
export type LocalBackend = (
  path: string,
  request: { method: string; body: Buffer },
) => Promise<LocalPage | undefined>;

/** What API Gateway's HTTP API answers when the function fails or overruns its timeout. */
const FUNCTION_FAILED: APIGatewayProxyStructuredResultV2 = {
  statusCode: 500,
  body: '{"message":"Internal Server Error"}',
};

/** Where the gateway writes one line per request; `npm start` prints them, tests leave it out. */
export type AccessLog = (line: string) => void;

/** What a request came to: the answer, and the route and invocation that gave it, when one did. */
interface Dispatched {
  result: APIGatewayProxyStructuredResultV2;
  route?: Route;
  requestId?: string;
}

/**
 * A local stand-in for API Gateway's HTTP API: it turns each request into a payload-v2 event for the same
 * handler module the stack deploys, and the handler's result back into a response. Each invocation gets the
 * timeout the stack gives the function; a handler that overruns it gets API Gateway's bare 500 at the deadline.
 */
export async function startGateway(
  routes: ReadonlyArray<{ route: Route; handler: HttpHandler }>,
  port = 0,
  {
    accessLog,
    pages = async () => undefined,
    backend = async () => undefined,
    timeoutMs = API_FUNCTION_TIMEOUT_SECONDS * 1000,
  }: {
    accessLog?: AccessLog;
    pages?: LocalPages;
    backend?: LocalBackend;
    /** Each function's timeout; a test shortens it to see a route answer within its time. */
    timeoutMs?: number;
  } = {},
): Promise<Listening> {
  const compiled = routes.map(compile);
  const inFlight = new Set<Promise<void>>();
  const track = (work: Promise<void>) => {
    const settled = work.catch(() => undefined);
    inFlight.add(settled);
    void settled.then(() => inFlight.delete(settled));
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const started = performance.now();
      const body = Buffer.concat(chunks);
      const path = new URL(request.url ?? '/', 'http://local').pathname;
      const method = request.method ?? 'GET';
      const page = (method === 'GET' ? pages(path) : Promise.resolve(undefined)).then(
        (found) => found ?? backend(path, { method, body }),
      );
      const done = page
        .then((found) => (found ? pageAnswer(found) : dispatch(compiled, request, body, track, timeoutMs)))
        .catch((): Dispatched => ({ result: FUNCTION_FAILED }))
        .then((dispatched) => {
          send(response, dispatched.result);
          accessLog?.(accessLine(request, body, dispatched, performance.now() - started));
        })
        .catch(() => send(response, FUNCTION_FAILED));
      track(done);
    });
  });
  const listening = await listen(server, port);
  return {
    ...listening,
    // Invocations still running finish first, so that nothing they touch is closed under them.
    close: async () => {
      await Promise.all(inFlight);
      await listening.close();
    },
  };
}

function pageAnswer({ contentType, body, headers, status = 200 }: LocalPage): Dispatched {
  const bytes = Buffer.isBuffer(body);
  return {
    result: {
      statusCode: status,
      headers: { ...headers, 'content-type': contentType },
      body: bytes ? body.toString('base64') : body,
      isBase64Encoded: bytes,
    },
  };
}

function compile({ route, handler }: { route: Route; handler: HttpHandler }): CompiledRoute {
  const params: string[] = [];
  const source = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    params.push(name);
    return '([^/]+)';
  });
  return { route, pattern: new RegExp(`^${source}$`), params, handler };
}

/** `track` is given each handler's own run, which may outlast the answer. */
async function dispatch(
  routes: CompiledRoute[],
  request: IncomingMessage,
  body: Buffer,
  track: (running: Promise<void>) => void,
  timeoutMs: number,
): Promise<Dispatched> {
  const url = new URL(request.url ?? '/', 'http://local');
  const method = request.method ?? 'GET';
  for (const { route, pattern, params, handler } of routes) {
    // A customer route answers its own CORS preflight (http/route.ts), as it does in AWS.
    const preflight = method === 'OPTIONS' && route.access === 'customer';
    const match = route.method === method || preflight ? pattern.exec(url.pathname) : null;
    if (!match) continue;
    let pathParameters: Record<string, string>;
    try {
      pathParameters = Object.fromEntries(params.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
    } catch {
      return { result: { statusCode: 400, body: '{"message":"Bad Request"}' }, route };
    }
    const event = toEvent(request, url, body, `${route.method} ${route.path}`, pathParameters);
    const { answer, finished, requestId } = invokeWithTimeout(handler, event, route.name, timeoutMs);
    track(finished);
    const result = await answer.then(
      (value) => value as APIGatewayProxyStructuredResultV2,
      () => FUNCTION_FAILED,
    );
    return { result, route, requestId };
  }
  return { result: { statusCode: 404, body: '{"message":"Not Found"}' } };
}

/**
 * `12:00:01.234 GET /invoices/order-1 200 3 ms <request id>`, the id that the function's own lines carry. A
 * callback's line adds what it said and what came of it. Never a header or a query, so never a token.
 */
function accessLine(request: IncomingMessage, body: Buffer, dispatched: Dispatched, ms: number): string {
  const { result, route, requestId } = dispatched;
  const path = new URL(request.url ?? '/', 'http://local').pathname;
  const line = [new Date().toISOString().slice(11, 23), request.method, path, result.statusCode ?? 200];
  line.push(`${Math.round(ms)} ms`, requestId ?? '-');
  if (route?.access === 'service') line.push(callbackSummary(body, result));
  return line.join(' ');
}

/** `invoice order-1 confirmed: applied`, from the callback's body and the function's answer. */
function callbackSummary(body: Buffer, result: APIGatewayProxyStructuredResultV2): string {
  const sent = readJson(body.toString('utf8'));
  const answer = readJson(result.body ?? '');
  const said = [sent.type, sent.foreign_id, sent.status].map((value) => shortText(value)).join(' ');
  const error = answer.error as Record<string, unknown> | undefined;
  return `${said}: ${shortText(answer.outcome ?? error?.code)}`;
}

/** A JSON object's fields, or none for anything else. */
export function readJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A value as the line shows it: a short string as it is (printable, quoted as JSON), anything else as `?`. */
function shortText(value: unknown): string {
  return typeof value === 'string' && value.length <= 64 ? JSON.stringify(value).slice(1, -1) : '?';
}

function toEvent(
  request: IncomingMessage,
  url: URL,
  body: Buffer,
  routeKey: string,
  pathParameters: Record<string, string>,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  return httpApiEvent({
    method: request.method ?? 'GET',
    routeKey,
    path: url.pathname,
    query: url.search.slice(1),
    headers,
    pathParameters,
    body,
    sourceIp: request.socket.remoteAddress ?? '127.0.0.1',
    protocol: `HTTP/${request.httpVersion}`,
  });
}

function send(response: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const body = result.body ?? '';
  response.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
  response.end(result.isBase64Encoded ? Buffer.from(body, 'base64') : body);
}
