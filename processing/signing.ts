// Request signature (spec section 5): hex HMAC-SHA512 of the exact body bytes, keyed with the secret key.
import { createHmac, timingSafeEqual } from 'node:crypto';

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

function hmac(secretKey: string, body: string | Buffer) {
  return createHmac('sha512', secretKey).update(body);
}
