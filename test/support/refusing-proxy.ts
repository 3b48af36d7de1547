import { createServer, request as httpRequest } from 'node:http';
import { listen } from '../../local/listen';

export interface RefusingProxy {
  url: string;
  /** Where requests go: set once the endpoint behind it is up, before the first request. */
  target: string;
  /**
   * While set, a request it matches (by `x-amz-target` and body) gets AWS's JSON 500 `InternalServiceError` and
   * never reaches the target: the service failing, every attempt of the SDK's retries included.
   */
  refuse?: (amzTarget: string, body: string) => boolean;
  /**
   * While set, how long to hold the answer to a request it forwarded: the call is done at once, and its caller
   * learns it later, as from a service slow to answer, in varying measure.
   */
  delayMs?: (amzTarget: string) => number;
  /** How many requests it refused. */
  refused: number;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of an AWS JSON endpoint (our local Secrets Manager): forwards every request it does not
 * refuse, and passes its answer on after the delay it is given.
 */
export async function startRefusingProxy(): Promise<RefusingProxy> {
  const proxy: Omit<RefusingProxy, 'url' | 'close'> = { target: '', refused: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      if (proxy.refuse?.(String(request.headers['x-amz-target']), body.toString())) {
        proxy.refused += 1;
        response.writeHead(500, { 'content-type': 'application/x-amz-json-1.1' });
        response.end(JSON.stringify({ __type: 'InternalServiceError', Message: 'Refused by the test' }));
        return;
      }
      const delay = proxy.delayMs?.(String(request.headers['x-amz-target'])) ?? 0;
      const upstream = httpRequest(`${proxy.target}${request.url ?? '/'}`, {
        method: request.method,
        headers: request.headers,
      });
      upstream.on('response', (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () =>
          setTimeout(() => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            response.end(Buffer.concat(parts));
          }, delay),
        );
      });
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  const listening = await listen(server, 0);
  return Object.assign(proxy, { url: listening.url, close: listening.close });
}
