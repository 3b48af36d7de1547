import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { verifyWebhook, type WebhookEvent } from '../client/plugin-client';
import { listen, type Listening } from './listen';

export interface ReceivedEvent {
  id: string;
  type: string;
  sequence: number;
  body: string;
  /** The three Standard Webhooks headers it came with. */
  headers?: Record<string, string>;
}

export interface WebhookReceiver extends Listening {
  /** Every event verified and acknowledged (answered 2xx) so far, in the order it came (repeats included). */
  received: ReceivedEvent[];
}

/**
 * A shop's endpoint for `npm start` and the tests: verifies each webhook with the typed client's `verifyWebhook`, as
 * a receiver would, with the Standard Webhooks libraries' tolerance. It answers `answer(event)` (200 by default), and
 * 401 for one that does not verify.
 */
export async function startWebhookReceiver(
  secret: string,
  options: {
    /** The status to answer; a promise holds the answer back until it settles (a test's slow endpoint). */
    answer?: (event: ReceivedEvent) => number | Promise<number>;
    onEvent?: (event: ReceivedEvent) => void;
  } = {},
): Promise<WebhookReceiver> {
  const received: ReceivedEvent[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: WebhookEvent;
      try {
        payload = verifyWebhook(secret, body, request.headers);
      } catch {
        response.writeHead(401).end();
        return;
      }
      const names = ['webhook-id', 'webhook-timestamp', 'webhook-signature'];
      const headers = Object.fromEntries(names.map((name) => [name, String(request.headers[name])]));
      const event = { id: payload.id, type: payload.type, sequence: payload.sequence, body, headers };
      const status = (await options.answer?.(event)) ?? 200;
      if (status >= 200 && status < 300) {
        received.push(event);
        options.onEvent?.(event);
      }
      response.writeHead(status).end();
    });
  });
  return { ...(await listen(server, 0)), received };
}
