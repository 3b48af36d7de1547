// The secret a customer's browser holds to watch one invoice (the public invoice view). The table keeps only its
// hash, so that a read of the table or of a backup never yields what opens an invoice's view.
import { hash, timingSafeEqual } from 'node:crypto';

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
