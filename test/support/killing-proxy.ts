import { createServer, request as httpRequest } from 'node:http';
import { listen } from '../../local/listen';

export interface KillingProxy {
  url: string;
  /** How many matching writes DynamoDB has answered with success. */
  answered: number;
  /** Called once DynamoDB has answered a matching write, before the caller sees it; the answer waits for it. */
  onAnswered: () => void | Promise<void>;
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of DynamoDB: forwards every request, and once a request that `matches` has succeeded, calls
 * `onAnswered` (which kills the caller) before passing the answer on: the write has landed, and nothing after it runs,
 * however fast the caller would have answered.
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
          const passOn = () => {
            response.writeHead(answer.statusCode ?? 502, answer.headers);
            response.end(Buffer.concat(parts));
          };
          if (!matched) return passOn();
          proxy.answered += 1;
          void Promise.resolve(proxy.onAnswered()).finally(passOn);
        });
      });
      upstream.on('error', () => response.destroy());
      upstream.end(body);
    });
  });
  const listening = await listen(server, 0);
  return Object.assign(proxy, listening);
}
