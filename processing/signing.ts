// Request signature (spec section 5): hex HMAC-SHA512 of the exact body bytes, keyed with the secret key.
import { createHmac } from 'node:crypto';

export function sign(secretKey: string, body: string | Buffer): string {
  return createHmac('sha512', secretKey).update(body).digest('hex');
}
