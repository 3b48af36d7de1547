// The secret a customer's browser holds to watch one invoice (the public invoice view). The table keeps only its
// hash, so that a read of the table or of a backup never yields what opens an invoice's view.
import { hash, timingSafeEqual } from 'node:crypto';
import { CLAIM_TOKEN_MARK, CLIENT_SECRET_MARK } from './ids';
import { DEFAULT_STORE_ID, STORE_ID, type StoreId } from './stores';
import { STORE_SEPARATOR } from './upstream';

/**
 * The store whose invoice a client secret opens (`cs_` and the HMAC for the default store, `cs_<storeId>!` and the
 * HMAC for another; a claim token likewise, `mark` `rc_`), read from the secret itself, so that the customer's
 * widget needs nothing else and the route still makes one read. A secret of the default store names none. Which store it names
 * opens nothing by itself: its invoice still has to hold the secret's hash.
 */
export function storeOfClientSecret(
  secret: string | undefined,
  mark: typeof CLIENT_SECRET_MARK | typeof CLAIM_TOKEN_MARK = CLIENT_SECRET_MARK,
): StoreId {
  if (!secret?.startsWith(mark)) return DEFAULT_STORE_ID;
  const separator = secret.indexOf(STORE_SEPARATOR);
  const storeId = secret.slice(mark.length, separator);
  return separator > 0 && STORE_ID.test(storeId) ? storeId : DEFAULT_STORE_ID;
}

export function clientSecretHash(secret: string): string {
  return sha256(secret).toString('base64url');
}

/**
 * Compared as digests, in constant time whatever the length given; false when either is missing. What is given is
 * hashed even with no hash stored, so that the time taken tells nothing of which invoices exist.
 */
export function clientSecretMatches(given: string | undefined, storedHash: string | undefined): boolean {
  if (given === undefined) return false;
  const digest = sha256(given);
  if (storedHash === undefined) return false;
  const expected = Buffer.from(storedHash, 'base64url');
  return expected.length === digest.length && timingSafeEqual(digest, expected);
}

function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}
