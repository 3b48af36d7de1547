import { createHmac } from 'node:crypto';
import { httpApiEvent } from '../../local/lambda-event';
import type { Harness } from './local-stack';

/** Hex HMAC-SHA512 over the exact bytes, as the service signs a callback. */
export function signBody(secretKey: string, body: string | Buffer): string {
  return createHmac('sha512', secretKey).update(body).digest('hex');
}

/** Headers of a callback signed with the sandbox's keys; `names` can spell the header names differently. */
export function signedHeaders(
  harness: Harness,
  body: string,
  names = { key: 'X-Processing-Key', signature: 'X-Processing-Signature' },
): Record<string, string> {
  const { apiKey, secretKey } = harness.stack.sandbox!;
  return { [names.key]: apiKey, [names.signature]: signBody(secretKey, body) };
}

/** A callback signed with the sandbox's keys, as API Gateway hands it to the callbacks function. */
export function signedCallbackEvent(harness: Harness, body: string) {
  return httpApiEvent({
    method: 'POST',
    routeKey: 'POST /callbacks',
    path: '/callbacks',
    headers: { 'content-type': 'application/json', ...signedHeaders(harness, body) },
    body: Buffer.from(body),
    sourceIp: '127.0.0.1',
    protocol: 'HTTP/1.1',
  });
}

/** POSTs a callback body to the plugin with the given headers, exactly as given. */
export function postCallback(
  harness: Harness,
  body: string,
  headers: Record<string, string>,
  contentType = 'application/json',
) {
  return harness.api('POST', '/callbacks', { body, headers: { 'content-type': contentType, ...headers } });
}

/** An invoice callback body the way the sandbox shapes one (a transaction record plus the quote times). */
export function invoiceCallbackBody(
  foreignId: string,
  status: string,
  extra: Record<string, unknown> = {},
): string {
  return JSON.stringify({
    id: 1,
    foreign_id: foreignId,
    type: 'invoice',
    currency_sent: { currency: 'BTC', amount: 0.00046 },
    currency_received: { currency: 'EUR', amount: 25.5 },
    transactions: [],
    fees: [],
    error: '',
    status,
    ...extra,
  });
}
