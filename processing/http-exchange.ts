// One HTTP exchange over a keep-alive agent: reads the whole body and knows whether the request left this process.
import http from 'node:http';
import https from 'node:https';

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
  constructor(readonly code: 'connect_timeout' | 'headers_timeout' | 'body_timeout' | 'deadline_exceeded') {
    super(code.replace('_', ' '));
    this.name = 'TimeoutError';
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
      const expiry = new Expiry(deadline, (code) => request.destroy(new TimeoutError(code)));
      const finish = (result: ExchangeResult) => {
        expiry.stop();
        resolve(result);
      };
      expiry.extend(connectTimeoutMs, 'connect_timeout');
      request.on('socket', (socket) => {
        const connected = () => {
          sent = true;
          expiry.extend(headersTimeoutMs, 'headers_timeout');
        };
        if (!socket.connecting) connected();
        else socket.once(this.origin.protocol === 'https:' ? 'secureConnect' : 'connect', connected);
      });
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        expiry.extend(bodyTimeoutMs, 'body_timeout');
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          expiry.extend(bodyTimeoutMs, 'body_timeout');
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

/**
 * When an exchange expires: each phase (and each body chunk) sets it anew, cut short by the deadline. One timer
 * serves them all, set again only when it fires before the exchange has expired or must fire sooner than it would:
 * a phase costs a clock read, not a timer.
 */
class Expiry {
  private at = Infinity;
  private code: TimeoutError['code'] = 'deadline_exceeded';
  private timer: NodeJS.Timeout | undefined;
  private firesAt = Infinity;
  private stopped = false;

  constructor(
    private readonly deadline: number,
    private readonly expired: (code: TimeoutError['code']) => void,
  ) {}

  /** The exchange now expires `ms` from now, with `code`, or at the deadline if that comes first. */
  extend(ms: number, code: TimeoutError['code']): void {
    const now = Date.now();
    const cut = this.deadline < now + ms;
    this.at = cut ? this.deadline : now + ms;
    this.code = cut ? 'deadline_exceeded' : code;
    if (this.at < this.firesAt) this.arm(now);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private arm(now: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.firesAt = this.at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, this.at - now));
  }

  private fire(): void {
    const now = Date.now();
    if (now >= this.at) this.expired(this.code);
    else this.arm(now);
  }
}
