// Request signature (spec section 5): hex HMAC-SHA512 of the exact body bytes, keyed with the secret key, sent with
// the API key in two headers. The client signs its requests so, and the service signs its callbacks so.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ProcessingKeys } from '../domain/ports';

export const KEY_HEADER = 'X-Processing-Key';
export const SIGNATURE_HEADER = 'X-Processing-Signature';

/** 64 bytes written as hex; `Buffer.from(text, 'hex')` would silently stop at the first non-hex character. */
const SIGNATURE = /^[0-9a-f]{128}$/i;

export function sign(secretKey: string, body: string | Buffer): string {
  return hmac(secretKey, body).digest('hex');
}

/** Whether `signature` is exactly the hex signature of `body`, compared in constant time over the raw bytes. */
export function verifySignature(secretKey: string, body: string | Buffer, signature: string): boolean {
  if (!SIGNATURE.test(signature)) return false;
  return timingSafeEqual(Buffer.from(signature, 'hex'), hmac(secretKey, body).digest());
}

/** The two headers that sign `body` with `keys`. */
export function signatureHeaders(keys: ProcessingKeys, body: Buffer): Record<string, string> {
  return { [KEY_HEADER]: keys.apiKey, [SIGNATURE_HEADER]: sign(keys.secretKey, body) };
}

export interface Signature {
  apiKey: string;
  signature: string;
}

/** The key and signature `headers` (lower-case names) carry; undefined unless both are there. */
export function signatureIn(headers: Record<string, string | undefined>): Signature | undefined {
  const apiKey = headers[KEY_HEADER.toLowerCase()];
  const signature = headers[SIGNATURE_HEADER.toLowerCase()];
  return apiKey && signature ? { apiKey, signature } : undefined;
}

/** Whether `given` names the API key of `keys` and signs exactly `body` with its secret key, in constant time. */
export function isSignedBy(keys: ProcessingKeys, body: Buffer, given: Signature): boolean {
  return sameDigest(given.apiKey, keys.apiKey) && verifySignature(keys.secretKey, body, given.signature);
}

/** Equal whatever their lengths, without the time telling how much of them matched. */
function sameDigest(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

function hmac(secretKey: string, body: string | Buffer) {
  return createHmac('sha512', secretKey).update(body);
}
