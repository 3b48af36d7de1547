import { createServer, request as httpRequest } from 'node:http';
import { listen } from '../../local/listen';

export interface KillingProxy {
  url: string;
  /** How many matching writes DynamoDB has answered with success. */
  answered: number;
  /** Called once the answer to a matching write has gone back to the caller. */
  onAnswered: () => void;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of DynamoDB: forwards every request, and after passing on a successful answer to a
 * request that `matches`, calls `onAnswered` (which kills the caller): the write has landed, nothing after it runs.
 */
export async function startKillingProxy(
  target: string,
  matches: (amzTarget: string, body: string) => boolean,
): Promise<KillingProxy> {
  const proxy: Omit<KillingProxy, 'url' | 'close'> = { answered: 0, onAnswered: () => undefined };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const upstream = httpRequest(`${target}${request.url ?? '/'}`, {
        method: request.method,
        headers: request.headers,
      });
      upstream.on('response', (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => parts.push(chunk));
        answer.on('end', () => {
          const matched =
            answer.statusCode === 200 && matches(String(request.headers['x-amz-target']), body.toString());
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          response.end(Buffer.concat(parts), () => {
            if (!matched) return;
            proxy.answered += 1;
            proxy.onAnswered();
          });
        });
      });
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  const listening = await listen(server, 0);
  return Object.assign(proxy, listening);
}
