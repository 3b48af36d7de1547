import type { IncomingMessage, ServerResponse } from 'node:http';
import { toJson } from './json';

export interface Reply {
  status: number;
  body: unknown;
}

export const reply = (status: number, body: unknown): Reply => ({ status, body });

export const notFound = (what = 'Not found'): Reply => reply(404, { error: what, code: 'not_found' });

export interface Route<C> {
  method: string;
  pattern: RegExp;
  handle: (context: C, params: string[]) => Reply;
}

/** Finds the route for a request; path parameters arrive URL-decoded. */
export function matchRoute<C>(
  routes: readonly Route<C>[],
  method: string,
  path: string,
): { route: Route<C>; params: string[] } | undefined {
  for (const route of routes) {
    const match = route.method === method ? route.pattern.exec(path) : null;
    if (!match) continue;
    try {
      return { route, params: match.slice(1).map((part) => decodeURIComponent(part)) };
    } catch {
      return undefined; // malformed percent-encoding: no such resource
    }
  }
  return undefined;
}

/** `pattern` is an exact path, or a prefix when it ends with `*`. */
export function pathMatches(pattern: string, path: string): boolean {
  return pattern.endsWith('*') ? path.startsWith(pattern.slice(0, -1)) : path === pattern;
}

export class BodyTooLarge extends Error {}

export function readBody(request: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        reject(new BodyTooLarge());
        request.resume();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

export function writeJson(response: ServerResponse, { status, body }: Reply): void {
  if (response.destroyed || response.headersSent) return;
  const text = toJson(body);
  response.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  response.end(text);
}

/** Thrown by an operation to answer with this reply instead of its normal result. */
export class ReplyError extends Error {
  constructor(readonly reply: Reply) {
    super(`HTTP ${reply.status}`);
  }
}

export const badRequest = (error: string, code = 'bad_request'): ReplyError =>
  new ReplyError(reply(400, { error, code }));
