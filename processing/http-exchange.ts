// One HTTP exchange over a keep-alive agent: reads the whole body and knows whether the request left this process.
import http from 'node:http';
import https from 'node:https';
import { Expiry, type ExpiryCode } from './expiry';

export type ExchangeResult =
  | { ok: true; status: number; body: string }
  /** `sent` is false when the failure came before a connection to the service existed. */
  | { ok: false; error: Error; sent: boolean };

export interface ExchangeRequest {
  method: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Epoch ms by which the exchange must end, whatever the timeouts allow; none when absent. */
  deadline?: number;
}

export interface TransportOptions {
  connections: number;
  connectTimeoutMs: number;
  headersTimeoutMs: number;
  /** Longest silence between body chunks. */
  bodyTimeoutMs: number;
}

export class TimeoutError extends Error {
  override name = 'TimeoutError';

  constructor(readonly code: ExpiryCode) {
    super(code.replace('_', ' '));
  }
}

/**
 * Keep-alive HTTP(S) to one origin, as stripe-node does it: node's own agent, which costs a cold start nothing to
 * load, reused by every request of the process.
 */
export class HttpTransport {
  private readonly agent: http.Agent;
  private readonly request: typeof http.request;

  constructor(
    private readonly origin: URL,
    private readonly options: TransportOptions,
  ) {
    const secure = origin.protocol === 'https:';
    const agentOptions = { keepAlive: true, maxSockets: options.connections, scheduling: 'lifo' as const };
    this.agent = secure ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.request = secure ? https.request : http.request;
  }

  exchange({ method, path, headers, body, deadline = Infinity }: ExchangeRequest): Promise<ExchangeResult> {
    const { connectTimeoutMs, headersTimeoutMs, bodyTimeoutMs } = this.options;
    return new Promise((resolve) => {
      let sent = false;
      const request = this.request({
        protocol: this.origin.protocol,
        hostname: this.origin.hostname,
        port: this.origin.port,
        method,
        path,
        headers: { ...headers, 'content-length': String(body.length) },
        agent: this.agent,
      });
      const finish = (result: ExchangeResult) => {
        expiry.stop();
        resolve(result);
      };
      const expiry = new Expiry(deadline, (code) => {
        const error = new TimeoutError(code);
        // A request still queued for one of the agent's sockets would hear of its destruction only once it got one.
        if (!request.socket) finish({ ok: false, error, sent: false });
        request.destroy(error);
      });
      expiry.expireIn(connectTimeoutMs, 'connect_timeout');
      request.on('socket', (socket) => {
        const connected = () => {
          sent = true;
          expiry.expireIn(headersTimeoutMs, 'headers_timeout');
        };
        if (!socket.connecting) connected();
        else socket.once(this.origin.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        expiry.expireIn(bodyTimeoutMs, 'body_timeout');
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          expiry.expireIn(bodyTimeoutMs, 'body_timeout');
        });
        response.on('end', () =>
          finish({
            ok: true,
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', (error) => finish({ ok: false, error, sent: true }));
      });
      request.on('error', (error) => finish({ ok: false, error, sent }));
      request.end(body);
    });
  }

  close(): Promise<void> {
    this.agent.destroy();
    return Promise.resolve();
  }
}
