// A scriptable stand-in for the service on 127.0.0.1:0 that records every request's raw bytes.
import { createHmac } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeySource, ProcessingKeys } from '../../domain/ports';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/**
 * `hang`: never answer. `reset`: drop the connection after reading the request. `stallAfter`: the headers and the
 * start of a body, then nothing.
 */
export type Reply =
  { status: number; body?: string | object } | { status: number; stallAfter: string } | 'hang' | 'reset';

export interface FakeService {
  url: string;
  received: Received[];
  /** Answers in order; the last one repeats. */
  replies(...replies: Array<Reply | ((request: Received) => Reply)>): void;
  close(): Promise<void>;
}

export async function startFakeService(): Promise<FakeService> {
  const received: Received[] = [];
  let script: Array<Reply | ((request: Received) => Reply)> = [{ status: 200, body: { data: [] } }];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks),
      };
      received.push(request);
      const next = script.length > 1 ? script.shift()! : script[0];
      const reply = typeof next === 'function' ? next(request) : next;
      if (reply === 'hang') return;
      if (reply === 'reset') return void req.socket.destroy();
      if ('stallAfter' in reply) {
        res.writeHead(reply.status, { 'content-type': 'application/json' });
        return void res.write(reply.stallAfter);
      }
      const text = typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body ?? {});
      res.writeHead(reply.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    replies: (...replies) => {
      script = replies;
    },
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A port with nothing listening: connecting is refused at once. */
export async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}`;
}

export function hmacHex(secretKey: string, body: Buffer): string {
  return createHmac('sha512', secretKey).update(body).digest('hex');
}

/** Hands out `keys[0]` until refreshed, then the next set; counts reads and refreshes. */
export function keySequence(...keys: ProcessingKeys[]): KeySource & { reads: number; refreshes: number } {
  let index = 0;
  return {
    reads: 0,
    refreshes: 0,
    async get() {
      this.reads += 1;
      return keys[index];
    },
    async refresh() {
      this.refreshes += 1;
      index = Math.min(index + 1, keys.length - 1);
      return keys[index];
    },
  };
}

export const KEYS: ProcessingKeys = { apiKey: 'api-key-AAAAAAAAAAAA', secretKey: 'secret-key-SSSSSSSSSSSS' };
export const NEW_KEYS: ProcessingKeys = {
  apiKey: 'api-key-BBBBBBBBBBBB',
  secretKey: 'secret-key-TTTTTTTTTTTT',
};

/** The service's record of `wd-1`, 25 USDT to BTC, as it answers an instant withdrawal with exchange. */
export const WITHDRAWAL = {
  id: 9,
  foreign_id: 'wd-1',
  type: 'withdrawal_instant_exchange',
  status: 'processing',
  sender_currency: 'USDT',
  sender_amount: '25.00000000',
  received_currency: 'BTC',
  received_amount: '0.00038000',
};
