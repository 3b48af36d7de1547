import { createServer, type IncomingHttpHeaders } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { listen } from '../local/listen';
import type { ShopDelivery } from './history';

/** How the shop's endpoint meets one webhook attempt: it answers 200, answers 500, is slow, or is down. */
export type ShopMood = 'ok' | 'error' | 'slow' | 'down';

export interface Shop {
  url: string;
  deliveries: ShopDelivery[];
  moods: Record<ShopMood, number>;
  /** Verifies the webhooks at the store's path (`shopPath`) with that store's secret alone. */
  addStore(storeId: string, secret: string): void;
  close(): Promise<void>;
}

/**
 * The shop's webhook endpoint: verifies each attempt with `standardwebhooks` and records it with its answer. The
 * default store's webhooks come to `/`, another store's to its own path.
 */
export async function startShop(
  secret: string,
  mood: (eventId: string, attempt: number) => { mood: ShopMood; slowMs: number },
): Promise<Shop> {
  const defaultVerifier = new Webhook(secret);
  const storeVerifiers = new Map<string, Webhook>();
  const deliveries: ShopDelivery[] = [];
  const moods: Record<ShopMood, number> = { ok: 0, error: 0, slow: 0, down: 0 };
  const attempts = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const verifier = storeVerifiers.get(request.url ?? '') ?? defaultVerifier;
      let payload: WebhookBody | undefined;
      let verified = true;
      let stale = false;
      try {
        payload = verifier.verify(body, request.headers as Record<string, string>) as WebhookBody;
      } catch (error) {
        // Signed before one of the quiet period's clock jumps: refused as a receiver would, though well signed.
        stale =
          error instanceof Error &&
          /timestamp/i.test(error.message) &&
          signedWell(verifier, request.headers, body);
        verified = stale;
        payload = safeJson(body);
      }
      const eventId = String(payload?.id ?? request.headers['webhook-id'] ?? '');
      const attempt = (attempts.get(eventId) ?? 0) + 1;
      attempts.set(eventId, attempt);
      const { mood: chosen, slowMs } = verified ? mood(eventId, attempt) : { mood: 'ok' as const, slowMs: 0 };
      moods[chosen]++;
      if (chosen === 'down') return void request.socket.destroy();
      if (chosen === 'slow') await new Promise((resolve) => setTimeout(resolve, slowMs));
      const answered = !verified ? 401 : stale ? 400 : chosen === 'error' ? 500 : 200;
      const data = payload?.data ?? {};
      deliveries.push({
        eventId,
        type: String(payload?.type ?? ''),
        sequence: Number(payload?.sequence),
        subject: String(data.foreign_id ?? ''),
        status: data.status ?? null,
        exception: data.exception ?? null,
        verified,
        answered,
      });
      if (!response.destroyed) response.writeHead(answered).end();
    });
  });
  const listening = await listen(server, 0);
  return {
    url: listening.url,
    deliveries,
    moods,
    addStore: (storeId, storeSecret) => void storeVerifiers.set(shopPath(storeId), new Webhook(storeSecret)),
    close: () => listening.close(),
  };
}

/** Where a store other than the default one sends its webhooks, under the shop's URL. */
export function shopPath(storeId: string): string {
  return `/stores/${storeId}`;
}

/** The signature alone, checked as `standardwebhooks` checks it, whatever the timestamp's age. */
function signedWell(verifier: Webhook, headers: IncomingHttpHeaders, body: string): boolean {
  const [id, timestamp, signatures] = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) =>
    String(headers[name] ?? ''),
  );
  const expected = verifier.sign(id, new Date(Number(timestamp) * 1000), body);
  return signatures.split(' ').includes(expected);
}

interface WebhookBody {
  id?: string;
  type?: string;
  sequence?: number;
  data?: { foreign_id?: string; status?: string; exception?: string | null };
}

function safeJson(text: string): WebhookBody | undefined {
  try {
    return JSON.parse(text) as WebhookBody;
  } catch {
    return undefined;
  }
}
