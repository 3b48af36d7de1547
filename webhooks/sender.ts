import * as http from 'node:http';
import * as https from 'node:https';
import type { Delivery, DeliveryAttempt } from '../domain/webhook-model';
import type { WebhookSender } from '../domain/ports';
import { signedHeaders } from './signing';

export interface WebhookEndpoint {
  url: string;
  /** Signed with each; the current one first. */
  secrets: () => Promise<readonly string[]>;
  now: () => number;
}

/**
 * Where webhooks may go: https, with no credentials in the URL; plain http only to 127.0.0.1 and only when
 * `allowLoopbackHttp` (the local stack). Answers why not, or undefined.
 */
export function endpointRefusal(url: string, allowLoopbackHttp: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not an absolute URL';
  }
  if (parsed.username || parsed.password) return 'credentials in the URL';
  if (parsed.protocol === 'https:') return undefined;
  if (parsed.protocol === 'http:' && allowLoopbackHttp && parsed.hostname === '127.0.0.1') return undefined;
  return allowLoopbackHttp ? 'neither https nor http://127.0.0.1' : 'not https';
}

/**
 * POSTs each event, signed, to one endpoint. Redirects are not followed (a 3xx is not delivered), the whole
 * attempt is bounded by its timeout, and nothing of the answer but its status is kept.
 */
export class HttpWebhookSender implements WebhookSender {
  private readonly agent: http.Agent;

  constructor(private readonly endpoint: WebhookEndpoint) {
    const secure = new URL(endpoint.url).protocol === 'https:';
    this.agent = secure ? new https.Agent({ keepAlive: true }) : new http.Agent({ keepAlive: true });
  }

  async send(
    delivery: Pick<Delivery, 'id' | 'body'>,
    timeoutMs: number,
  ): Promise<Omit<DeliveryAttempt, 'at'>> {
    let secrets: readonly string[];
    try {
      secrets = await this.endpoint.secrets();
    } catch {
      return { status: null, error: 'webhook secret unavailable' };
    }
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'payments-plugin-webhooks/1',
      ...signedHeaders(delivery.id, Math.floor(this.endpoint.now() / 1000), delivery.body, secrets),
    };
    return post(this.endpoint.url, this.agent, headers, delivery.body, timeoutMs);
  }
}

function post(
  url: string,
  agent: http.Agent,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<Omit<DeliveryAttempt, 'at'>> {
  const client = url.startsWith('https:') ? https : http;
  return new Promise((resolve) => {
    const request = client.request(url, { method: 'POST', agent, headers });
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ status: null, error: 'timeout' });
    }, timeoutMs);
    request.on('response', (response) => {
      // Drained, not read: the body says nothing we keep, and the socket can then be reused.
      response.resume();
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? null, error: null });
      });
      response.on('error', () => {
        clearTimeout(timer);
        resolve({ status: null, error: 'answer cut off' });
      });
    });
    request.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ status: null, error: error.code ?? 'connection failed' });
    });
    request.end(body);
  });
}
