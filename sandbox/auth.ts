import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export interface Keys {
  apiKey: string;
  secretKey: string;
}

export interface AuthFailure {
  code: 'required_header_key' | 'bad_header_key' | 'required_header_signature' | 'bad_header_signature';
  error: string;
}

/** Hex HMAC-SHA512 of the exact body bytes (spec 5.2). */
export function sign(secretKey: string, body: Buffer | string): string {
  return createHmac('sha512', secretKey).update(body).digest('hex');
}

export const AUTH_ERRORS: Record<AuthFailure['code'], string> = {
  required_header_key: 'The X-Processing-Key header is required.',
  bad_header_key: 'The X-Processing-Key header is invalid.',
  required_header_signature: 'The X-Processing-Signature header is required.',
  bad_header_signature: 'The X-Processing-Signature header is invalid.',
};

const failure = (code: AuthFailure['code']): AuthFailure => ({ code, error: AUTH_ERRORS[code] });

/** Checks the two headers in the order key absent, key wrong, signature absent, signature wrong. */
export function authenticate(
  headers: IncomingHttpHeaders,
  rawBody: Buffer,
  keys: Keys,
): AuthFailure | undefined {
  const key = header(headers, 'x-processing-key');
  if (key === undefined) return failure('required_header_key');
  if (!sameText(key, keys.apiKey)) return failure('bad_header_key');
  const signature = header(headers, 'x-processing-signature');
  if (signature === undefined) return failure('required_header_signature');
  if (!sameSignature(signature, sign(keys.secretKey, rawBody))) return failure('bad_header_signature');
  return undefined;
}

// Node lower-cases incoming header names, so the lookup is case-insensitive already.
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  const text = Array.isArray(value) ? value.join(', ') : value;
  return text === undefined || text.trim() === '' ? undefined : text.trim();
}

// Hashing first gives equal lengths, so the comparison takes the same time whatever the input.
function sameText(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

// Hex is case-insensitive; anything that is not 128 hex digits is simply wrong.
function sameSignature(given: string, expected: string): boolean {
  if (!/^[0-9a-fA-F]{128}$/.test(given)) return false;
  return timingSafeEqual(Buffer.from(given, 'hex'), Buffer.from(expected, 'hex'));
}
