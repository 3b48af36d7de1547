import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
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
 * A shop's endpoint for `npm start` and the tests: verifies each webhook with the `standardwebhooks` package, as a
 * receiver would, and answers `answer(event)` (200 by default); 401 for one that does not verify.
 */
export async function startWebhookReceiver(
  secret: string,
  options: {
    /** The status to answer; a promise holds the answer back until it settles (a test's slow endpoint). */
    answer?: (event: ReceivedEvent) => number | Promise<number>;
    onEvent?: (event: ReceivedEvent) => void;
  } = {},
): Promise<WebhookReceiver> {
  const verifier = new Webhook(secret);
  const received: ReceivedEvent[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let payload: { id: string; type: string; sequence: number };
      try {
        payload = verifier.verify(body, request.headers as Record<string, string>) as typeof payload;
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
