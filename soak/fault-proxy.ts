import {
  Agent,
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { listen } from '../local/listen';

/**
 * What a request meets at the wire: passed through; refused at once (`refuse`, the endpoint's own error answer:
 * a 5xx, DynamoDB's throttling); left hanging (`hang`, never answered, nothing done); the connection reset before
 * anything is done (`reset_before`) or after it is done (`reset_after`, the answer lost).
 */
export type WireFault = 'pass' | 'refuse' | 'hang' | 'reset_before' | 'reset_after';

export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

export interface FaultProxyOptions {
  /** Where requests go, e.g. http://127.0.0.1:4567; asked per request, so it may be known only after the start. */
  target: () => string;
  /** The fault for this request, and for `refuse` the answer to give. */
  decide(request: ProxiedRequest): {
    fault: WireFault;
    answer?: { status: number; body: string; type: string };
  };
}

export interface FaultLayerOptions extends Pick<FaultProxyOptions, 'decide'> {
  /** Sees every exchange that reached the server; `body()` reads the answer's body. */
  onExchange?(request: ProxiedRequest, status: number, body: () => string): void;
}

export interface FaultProxy {
  url: string;
  /** Faults applied so far, by kind. */
  counts: Record<WireFault, number>;
  close(): Promise<void>;
}

/**
 * What both ways of putting faults in front of an endpoint share: each request read whole gets its fault decided
 * and counted, and the faults that stop it before the endpoint (`hang`, `reset_before`, `refuse`) are met here.
 */
function faultLayer(decide: FaultProxyOptions['decide']) {
  const counts: Record<WireFault, number> = { pass: 0, refuse: 0, hang: 0, reset_before: 0, reset_after: 0 };
  const hung = new Set<ServerResponse>();
  return {
    counts,
    /** The request and its fault when it goes on to the endpoint; undefined when its fault has stopped it. */
    admit(request: IncomingMessage, response: ServerResponse, body: Buffer) {
      const proxied: ProxiedRequest = {
        method: request.method ?? 'GET',
        path: request.url ?? '/',
        headers: request.headers,
        body,
      };
      const { fault, answer } = decide(proxied);
      counts[fault]++;
      if (fault === 'hang') return void hung.add(response);
      if (fault === 'reset_before') return void request.socket.destroy();
      if (fault === 'refuse' && answer) {
        response.writeHead(answer.status, {
          'content-type': answer.type,
          'content-length': Buffer.byteLength(answer.body),
        });
        return void response.end(answer.body);
      }
      return { proxied, fault };
    },
    /** Drops the connections of the requests left hanging. */
    release() {
      for (const response of hung) response.socket?.destroy();
    },
  };
}

/** An HTTP proxy in front of an endpoint (the service, DynamoDB) that injects faults at the wire. */
export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const layer = faultLayer(options.decide);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const admitted = layer.admit(request, response, Buffer.concat(chunks));
      if (!admitted) return;
      const { proxied, fault } = admitted;
      const target = new URL(options.target());
      const outgoing = httpRequest(
        {
          host: target.hostname,
          port: target.port,
          method: proxied.method,
          path: proxied.path,
          headers: { ...request.headers, host: target.host },
          agent,
        },
        (upstream) => {
          const body: Buffer[] = [];
          upstream.on('data', (chunk: Buffer) => body.push(chunk));
          upstream.on('end', () => {
            const bytes = Buffer.concat(body);
            if (fault === 'reset_after') return void request.socket.destroy();
            const headers = { ...upstream.headers };
            delete headers['transfer-encoding'];
            response.writeHead(upstream.statusCode ?? 502, { ...headers, 'content-length': bytes.length });
            response.end(bytes);
          });
        },
      );
      outgoing.on('error', () => request.socket.destroy());
      outgoing.end(proxied.body);
    });
  });
  const listening = await listen(server, 0);
  return {
    url: listening.url,
    counts: layer.counts,
    close: async () => {
      layer.release();
      server.closeAllConnections();
      await listening.close();
      agent.destroy();
    },
  };
}

/**
 * The same faults put in front of a local server's own request handling, for an endpoint in this process (dynalite):
 * what a caller meets at the wire is the same as behind a proxy, without a second HTTP exchange for every call. As
 * the proxy does, it reads each request whole and decides its fault before the server sees any of it.
 */
export function faultsInFront(server: Server, options: FaultLayerOptions): FaultProxy {
  const layer = faultLayer(options.decide);
  const serve = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.once('end', () => {
      request.removeAllListeners('data');
      const admitted = layer.admit(
        request,
        response,
        chunks.length === 1 ? chunks[0] : Buffer.concat(chunks),
      );
      if (!admitted) return;
      const { proxied, fault } = admitted;
      const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
      response.end = ((...args: unknown[]) => {
        const [chunk] = args;
        options.onExchange?.(proxied, response.statusCode, () =>
          chunk === undefined || typeof chunk === 'function' ? '' : String(chunk),
        );
        if (fault === 'reset_after') {
          request.socket.destroy();
          return response;
        }
        return end(...args);
      }) as ServerResponse['end'];
      // The server's own handling, given the request as it arrived: its body, then its end.
      for (const listener of serve) listener.call(server, request, response);
      if (proxied.body.length > 0) request.emit('data', proxied.body);
      request.emit('end');
    });
  });
  return {
    url: '',
    counts: layer.counts,
    close: async () => layer.release(),
  };
}
