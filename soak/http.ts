import { Agent, request } from 'node:http';

/**
 * Keeps connections open between calls, as a storefront's HTTP client would; one idle for 4 s is closed, before
 * the gateway's 5 s keep-alive timeout closes it under a request.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 256, timeout: 4_000 });

export interface Answer {
  status: number;
  text: string;
}

/**
 * One HTTP exchange over node:http with a keep-alive agent: the soak makes tens of thousands, and `fetch` costs
 * several times the CPU of node:http for each, in the process that also runs the whole stack.
 */
export async function exchange(
  url: string,
  method: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  try {
    return await once(url, method, headers, body, agent);
  } catch (error) {
    // The server closed a kept-alive connection as the request went out on it: nothing was served. Sent again on
    // a connection of its own, which cannot be stale.
    if (!(error instanceof StaleConnection)) throw error;
    return once(url, method, headers, body, false);
  }
}

class StaleConnection extends Error {}

function once(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
  via: Agent | false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method,
        agent: via,
        headers:
          body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        outgoing.reusedSocket && error.code === 'ECONNRESET' ? new StaleConnection(error.message) : error,
      ),
    );
    outgoing.end(body);
  });
}
