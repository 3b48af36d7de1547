import { Pool } from 'undici';

export interface RawAnswer {
  status: number;
  body: any;
}

export interface RawRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent byte for byte; no content-type is added, so a test can omit it or pick any. */
  body?: string;
}

/** A keep-alive client that sends exactly the given headers and body, for malformed-request tests. */
export function rawClient(baseUrl: string) {
  const pool = new Pool(baseUrl, { connections: 4 });
  return {
    async send({ method, path, headers = {}, body }: RawRequest): Promise<RawAnswer> {
      const answer = await pool.request({ method: method as 'POST', path, headers, body });
      const text = await answer.body.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the text so a failing assertion shows it
      }
      return { status: answer.statusCode, body: parsed };
    },
    close: () => pool.close(),
  };
}
