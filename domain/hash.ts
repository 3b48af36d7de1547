import { createHmac, hash, randomBytes } from 'node:crypto';

/** A request in one form whatever the order of its keys, so that a retry can be told apart from another request. */
export function canonicalRequest(request: object): string {
  const entries = Object.entries(request)
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify(entries);
}

/** Whether `given` is the request a record holds, whatever the order of its keys. */
export function isSameRequest(record: { request: object }, given: object): boolean {
  return canonicalRequest(record.request) === canonicalRequest(given);
}

/**
 * A digest of a request in its canonical form, salted: kept to tell a retry of the request from another, it tells
 * nothing of what the request held (keys among it) to one who reads it. `salt:hex`, checked by `isDigestOf`.
 */
export function saltedDigest(request: object, salt = randomBytes(16).toString('hex')): string {
  return `${salt}:${hash('sha256', `${salt}\n${canonicalRequest(request)}`, 'hex')}`;
}

/** Whether `digest` (from `saltedDigest`) is of `request`, whatever the order of its keys. */
export function isDigestOf(digest: string, request: object): boolean {
  const salt = digest.slice(0, digest.indexOf(':'));
  return salt !== '' && saltedDigest(request, salt) === digest;
}

/**
 * A keyed digest of a part of a request, salted: `salt:hex`, an HMAC under `key`. Unlike `saltedDigest`, one who
 * reads it cannot test a guess of what it holds (a name and a birth date are few enough to guess) without the key.
 */
export function keyedDigest(part: object, key: Buffer, salt = randomBytes(16).toString('hex')): string {
  return `${salt}:${createHmac('sha256', key)
    .update(`${salt}\n${canonicalRequest(part)}`)
    .digest('hex')}`;
}

/** Whether `digest` (from `keyedDigest`) is of `part` under `key`. */
export function isKeyedDigestOf(digest: string, part: object, key: Buffer): boolean {
  const salt = digest.slice(0, digest.indexOf(':'));
  return salt !== '' && keyedDigest(part, key, salt) === digest;
}

/** A request with a part of it kept only as its keyed digest under `field` (see `keyedDigest`), never as it is. */
export function withDigestOf<R extends object>(
  request: R,
  field: string,
  part: object | undefined,
  key: Buffer,
): R {
  return part === undefined ? request : { ...request, [field]: keyedDigest(part, key) };
}

/**
 * Whether a record holds `request` with `part` (see `withDigestOf`): the rest the same whatever the order of its
 * keys, and the part the same one, or absent from both.
 */
export function isSameWithDigest(
  record: { request: object },
  request: object,
  field: string,
  part: object | undefined,
  key: Buffer,
): boolean {
  const { [field]: digest, ...rest } = record.request as Record<string, unknown>;
  if (!isSameRequest({ request: rest }, request)) return false;
  if (digest === undefined || part === undefined) return digest === undefined && part === undefined;
  return typeof digest === 'string' && isKeyedDigestOf(digest, part, key);
}
