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

/** What API Gateway's HTTP API answers when the function fails or overruns its timeout. */
const FUNCTION_FAILED: APIGatewayProxyStructuredResultV2 = {
  statusCode: 500,
  body: '{"message":"Internal Server Error"}',
};

/**
 * A local stand-in for API Gateway's HTTP API: it turns each request into a payload-v2 event for the same
 * handler module the stack deploys, and the handler's result back into a response. Each invocation gets the
 * timeout the stack gives the function; a handler that overruns it gets API Gateway's bare 500 at the deadline.
 */
export async function startGateway(
  routes: ReadonlyArray<{ route: Route; handler: HttpHandler }>,
  port = 0,
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
      const done = dispatch(compiled, request, Buffer.concat(chunks), track)
        .then((result) => send(response, result))
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
): Promise<APIGatewayProxyStructuredResultV2> {
  const url = new URL(request.url ?? '/', 'http://local');
  const method = request.method ?? 'GET';
  for (const { route, pattern, params, handler } of routes) {
    const match = route.method === method ? pattern.exec(url.pathname) : null;
    if (!match) continue;
    let pathParameters: Record<string, string>;
    try {
      pathParameters = Object.fromEntries(params.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
    } catch {
      return { statusCode: 400, body: '{"message":"Bad Request"}' };
    }
    const event = toEvent(request, url, body, `${route.method} ${route.path}`, pathParameters);
    const { answer, finished } = invokeWithTimeout(
      handler,
      event,
      route.name,
      API_FUNCTION_TIMEOUT_SECONDS * 1000,
    );
    track(finished);
    return (await answer) as APIGatewayProxyStructuredResultV2;
  }
  return { statusCode: 404, body: '{"message":"Not Found"}' };
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
