// One HTTP exchange on an undici dispatcher: reads the whole body and knows whether the request reached a socket.
import type { Dispatcher } from 'undici';

export type ExchangeResult =
  | { ok: true; status: number; body: string }
  /** `sent` is false when the failure came before undici began writing the request. */
  | { ok: false; error: Error; sent: boolean };

export function exchange(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
): Promise<ExchangeResult> {
  return new Promise((resolve) => {
    let sent = false;
    let status = 0;
    const chunks: Buffer[] = [];
    dispatcher.dispatch(options, {
      onRequestStart: () => {
        sent = true;
      },
      onResponseStart: (_controller, statusCode) => {
        status = statusCode;
      },
      onResponseData: (_controller, chunk) => {
        chunks.push(chunk);
      },
      onResponseEnd: () => resolve({ ok: true, status, body: Buffer.concat(chunks).toString('utf8') }),
      onResponseError: (_controller, error) => resolve({ ok: false, error, sent }),
    });
  });
}
