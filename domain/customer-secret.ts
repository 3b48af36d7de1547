// The secrets a customer's browser holds: an invoice's client secret (the public invoice view) and a refund's claim
// token (the claim page). The table keeps only their hashes, so that a read of it or of a backup opens nothing.
import { hash, timingSafeEqual } from 'node:crypto';
import { CLAIM_TOKEN_MARK, CLIENT_SECRET_MARK } from './ids';
import { DEFAULT_STORE_ID, STORE_ID, type StoreId } from './stores';
import { STORE_SEPARATOR } from './upstream';

/**
 * The store whose record a customer secret opens (`cs_` and the HMAC for the default store, `cs_<storeId>!` and the
 * HMAC for another; a claim token likewise, `mark` `rc_`), read from the secret itself, so that the customer's page
 * needs nothing else and the route still makes one read. Which store it names opens nothing by itself: its record
 * still has to hold the secret's hash.
 */
export function storeOfCustomerSecret(
  secret: string | undefined,
  mark: typeof CLIENT_SECRET_MARK | typeof CLAIM_TOKEN_MARK = CLIENT_SECRET_MARK,
): StoreId {
  if (!secret?.startsWith(mark)) return DEFAULT_STORE_ID;
  const separator = secret.indexOf(STORE_SEPARATOR);
  const storeId = secret.slice(mark.length, separator);
  return separator > 0 && STORE_ID.test(storeId) ? storeId : DEFAULT_STORE_ID;
}

export function customerSecretHash(secret: string): string {
  return sha256(secret).toString('base64url');
}

/**
 * Compared as digests, in constant time whatever the length given; false when either is missing. What is given is
 * hashed even with no hash stored, so that the time taken tells nothing of which invoices exist.
 */
export function customerSecretMatches(given: string | undefined, storedHash: string | undefined): boolean {
  if (given === undefined) return false;
  const digest = sha256(given);
  if (storedHash === undefined) return false;
  const expected = Buffer.from(storedHash, 'base64url');
  return expected.length === digest.length && timingSafeEqual(digest, expected);
}

function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}
