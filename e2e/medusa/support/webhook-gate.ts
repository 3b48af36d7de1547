import { createServer } from 'node:http';
import { listen, type Listening } from '../../../local/listen';

export interface Delivery {
  type: string;
  foreignId: string;
  /** Medusa's answer, or 503 when the gate held the event back. */
  status: number;
}

/** Stands between our stack and Medusa's webhook route, so that a test can hold back one invoice's events. */
export interface WebhookGate {
  listening: Listening;
  /** Every event that reached the gate, in order. */
  deliveries: Delivery[];
  /** Answers 503 to this invoice's events, without passing them on, until `open` is called. */
  hold(foreignId: string): void;
  open(foreignId: string): void;
}

export async function startWebhookGate(target: () => string): Promise<WebhookGate> {
  const held = new Set<string>();
  const deliveries: Delivery[] = [];
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let event: { type?: string; data?: { foreign_id?: string } } = {};
    try {
      event = JSON.parse(body.toString('utf8'));
    } catch {
      // not JSON: passed on as it is
    }
    const foreignId = event.data?.foreign_id ?? '';
    const delivery = { type: event.type ?? '', foreignId, status: 503 };
    deliveries.push(delivery);
    if (held.has(foreignId)) {
      response.writeHead(503).end();
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name))
        headers[name] = value;
    }
    try {
      const answer = await fetch(target(), { method: 'POST', headers, body });
      delivery.status = answer.status;
      response.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'text/plain',
      });
      response.end(Buffer.from(await answer.arrayBuffer()));
    } catch {
      delivery.status = 502;
      response.writeHead(502).end();
    }
  });
  const listening = await listen(server);
  return {
    listening,
    deliveries,
    hold: (foreignId) => held.add(foreignId),
    open: (foreignId) => held.delete(foreignId),
  };
}
