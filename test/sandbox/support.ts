import { createHmac } from 'node:crypto';
import { createServer, request, type Agent, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server';

// Test helpers that talk to the sandbox over real HTTP. Signing is done here with node:crypto, independently of
// the sandbox's own code, so that a signing bug in one cannot hide in the other.

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface RawOptions {
  body?: string;
  headers?: Record<string, string>;
  agent?: Agent;
}

export const hmacHex = (secret: string, body: string) =>
  createHmac('sha512', secret).update(body).digest('hex');

/** One HTTP exchange with exactly these bytes and headers (GET bodies included, which fetch cannot send). */
export function raw(
  sandbox: { url: string },
  method: string,
  path: string,
  options: RawOptions = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body, 'utf8');
    const outgoing = request(`${sandbox.url}${path}`, {
      method,
      agent: options.agent ?? false,
      headers: { ...(body && { 'Content-Length': String(body.length) }), ...options.headers },
    });
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text, json });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** A correctly signed /v2 call; `body` objects are sent with JSON.stringify, strings as they are. */
export function api(
  sandbox: Sandbox,
  method: string,
  path: string,
  body?: unknown,
  agent?: Agent,
): Promise<Answer> {
  const text =
    body === undefined
      ? method === 'GET'
        ? ''
        : '{}'
      : typeof body === 'string'
        ? body
        : JSON.stringify(body);
  return raw(sandbox, method, path, {
    body: text === '' ? undefined : text,
    agent,
    headers: {
      'Content-Type': 'application/json',
      'X-Processing-Key': sandbox.apiKey,
      'X-Processing-Signature': hmacHex(sandbox.secretKey, text),
    },
  });
}

/** An unsigned control API call. */
export function control(
  sandbox: { url: string },
  method: string,
  path: string,
  body?: unknown,
): Promise<Answer> {
  return raw(sandbox, method, `/_sandbox${path}`, {
    body: body === undefined ? undefined : JSON.stringify(body),
    headers: body === undefined ? {} : { 'Content-Type': 'application/json' },
  });
}

export function invoiceRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    timer: false,
    title: 'Order 1001',
    foreign_id: `inv-${Math.random().toString(36).slice(2)}`,
    currency: 'USD',
    amount: '100',
    url_success: 'https://shop.test/success',
    url_failed: 'https://shop.test/failed',
    email_user: 'customer@shop.test',
    ...overrides,
  };
}

export async function createInvoice(sandbox: Sandbox, overrides: Record<string, unknown> = {}) {
  const answer = await api(sandbox, 'POST', '/v2/invoices/create', invoiceRequest(overrides));
  if (answer.status !== 201) throw new Error(`create failed: ${answer.status} ${answer.text}`);
  return answer.json.data;
}

/** Starts one sandbox for a test file and resets it before each test. */
export function useSandbox(options: SandboxOptions = {}): () => Sandbox {
  let sandbox: Sandbox | undefined;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, ...options });
  });
  beforeEach(async () => {
    await control(sandbox!, 'POST', '/reset');
  });
  afterAll(async () => {
    await sandbox?.close();
  });
  return () => sandbox!;
}

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local callback receiver answering each request with the next status of `statuses` (then 200). */
export async function startReceiver(statuses: number[] = []) {
  const received: Received[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      received.push({ headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(statuses.shift() ?? 200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Polls `probe` until it answers a value; long by default, as a loaded machine can take seconds for a callback. */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error('waitFor timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
