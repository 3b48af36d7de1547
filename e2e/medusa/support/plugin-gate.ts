import { createServer, request as httpRequest } from 'node:http';
import { listen, type Listening } from '../../../local/listen';

/** What happens to the next checkouts (POST /checkout) for one customer e-mail address. */
export type CheckoutFault =
  /** The plugin is down: the checkout never reaches it, and the provider gets 503. */
  | 'down'
  /** The plugin makes the invoice, but its answer is lost on the way back. */
  | 'answer-lost';

/** Stands between Medusa's provider and our API, so that a test can fail one customer's checkouts. */
export interface PluginGate {
  listening: Listening;
  /** Fails the next `times` checkouts for the customer `email` with `fault`; the ones after pass. */
  fail(email: string, fault: CheckoutFault, times: number): void;
  /** How many checkouts for the customer `email` reached the gate. */
  checkouts(email: string): number;
}

export async function startPluginGate(target: string): Promise<PluginGate> {
  const faults = new Map<string, { fault: CheckoutFault; left: number }>();
  const seen = new Map<string, number>();
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let fault: CheckoutFault | undefined;
    if (request.method === 'POST' && request.url === '/checkout') {
      let email = '';
      try {
        email = JSON.parse(body.toString('utf8')).email ?? '';
      } catch {
        // not JSON: the plugin refuses it
      }
      seen.set(email, (seen.get(email) ?? 0) + 1);
      const armed = faults.get(email);
      if (armed && armed.left > 0) {
        armed.left -= 1;
        fault = armed.fault;
      }
    }
    if (fault === 'down') {
      response.writeHead(503, { 'content-type': 'text/plain' }).end('down');
      return;
    }
    // The plugin names itself in links from the Host it was asked at: the gate must not show in them.
    const { host: _host, ...headers } = request.headers;
    const upstream = httpRequest(`${target}${request.url}`, { method: request.method, headers });
    upstream.on('response', async (answer) => {
      const parts: Buffer[] = [];
      for await (const part of answer) parts.push(part as Buffer);
      // The plugin made the invoice and answered; the provider never hears it.
      if (fault === 'answer-lost') return void request.socket.destroy();
      response.writeHead(answer.statusCode ?? 502, answer.headers);
      response.end(Buffer.concat(parts));
    });
    upstream.on('error', () => response.destroy());
    upstream.end(body);
  });
  const listening = await listen(server);
  return {
    listening,
    fail: (email, fault, times) => faults.set(email, { fault, left: times }),
    checkouts: (email) => seen.get(email) ?? 0,
  };
}
