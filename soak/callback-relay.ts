import { createServer, request as httpRequest } from 'node:http';
import { listen } from '../local/listen';
import { KILL_HEADER } from './kill';

/**
 * What happens to one callback the service sends: delivered as sent (`pass`); sent twice at once (`duplicate`);
 * acknowledged to the service and delivered later (`delay`, so that the next news overtakes it); acknowledged and
 * never delivered (`drop`: only the reconcile job can learn it); delivered to an invocation that dies (`kill`).
 */
export type CallbackFate = 'pass' | 'duplicate' | 'delay' | 'drop' | 'kill';

export interface CallbackRelay {
  url: string;
  fates: Record<CallbackFate, number>;
  /** Each callback's fate, by the foreign_id and status it carried. */
  log: Array<{ subject: string; status: string; fate: CallbackFate }>;
  /** Settles once every delayed callback has been delivered or given up. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Sits between the service and the plugin's callback route, changing the service's callbacks' fates. */
export async function startCallbackRelay(
  target: () => string,
  decide: (body: string, attempt: number) => { fate: CallbackFate; delayMs: number; killAfter: number },
): Promise<CallbackRelay> {
  const fates: Record<CallbackFate, number> = { pass: 0, duplicate: 0, delay: 0, drop: 0, kill: 0 };
  const attempts = new Map<string, number>();
  const log: CallbackRelay['log'] = [];
  const pending = new Set<Promise<void>>();
  let closed = false;

  const post = (headers: Record<string, string>, body: Buffer) =>
    new Promise<number>((resolve) => {
      const url = new URL(target());
      const outgoing = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers, agent: false },
        (response) => {
          response.resume();
          response.on('end', () => resolve(response.statusCode ?? 0));
        },
      );
      outgoing.on('error', () => resolve(0));
      outgoing.end(body);
    });

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', async () => {
      const body = Buffer.concat(chunks);
      const text = body.toString('utf8');
      const attempt = (attempts.get(text) ?? 0) + 1;
      attempts.set(text, attempt);
      const { fate, delayMs, killAfter } = decide(text, attempt);
      fates[fate]++;
      const { foreign_id: subject = '', status = '' } = readFields(text);
      log.push({ subject, status, fate });
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        'content-length': String(body.length),
        'x-processing-key': String(request.headers['x-processing-key'] ?? ''),
        'x-processing-signature': String(request.headers['x-processing-signature'] ?? ''),
      };
      const answer = (status: number) => void response.writeHead(status === 0 ? 502 : status).end();
      if (fate === 'drop') return answer(200);
      if (fate === 'kill') return answer(await post({ ...headers, [KILL_HEADER]: String(killAfter) }, body));
      if (fate === 'duplicate') {
        const [first] = await Promise.all([post(headers, body), post(headers, body)]);
        return answer(first);
      }
      if (fate === 'pass') return answer(await post(headers, body));
      // delay: the service hears 200 now; the relay delivers later, retrying as the service would.
      answer(200);
      const later = (async () => {
        await sleep(delayMs);
        for (let tries = 0; tries < 20 && !closed; tries++) {
          if ((await post(headers, body)) === 200) return;
          await sleep(100 * (tries + 1));
        }
      })();
      pending.add(later);
      void later.finally(() => pending.delete(later));
    });
  });
  const listening = await listen(server, 0);
  return {
    url: listening.url,
    fates,
    log,
    idle: async () => {
      while (pending.size > 0) await Promise.all(pending);
    },
    close: async () => {
      closed = true;
      await listening.close();
    },
  };
}

function readFields(text: string): { foreign_id?: string; status?: string } {
  try {
    return JSON.parse(text) as { foreign_id?: string; status?: string };
  } catch {
    return {};
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
