// The plugin's ids for Medusa's sessions and refunds: stable, so every retry names the same invoice or refund.
import { createHash } from 'node:crypto';
import { MerchantPaymentsError } from './errors';

// The plugin's foreign_id: 1 to 64 of A-Za-z0-9._:- .
const FOREIGN_ID_CHARS = /^[A-Za-z0-9._:-]+$/;
// Room for the prefix and the revision (".r" and up to 3 digits) within the 64 allowed.
const MAX_KEY_LENGTH = 48;
export const MAX_REVISION = 999;

/** Medusa's id as it is when it fits the plugin's rules, else a digest of it (the same id, the same key). */
function key(id: string): string {
  if (id.length <= MAX_KEY_LENGTH && FOREIGN_ID_CHARS.test(id)) return id;
  return `h${createHash('sha256').update(id).digest('hex').slice(0, 40)}`;
}

function required(id: unknown, what: string): string {
  if (typeof id !== 'string' || id === '') {
    throw new MerchantPaymentsError('invalid_data', 'missing_id', `${what} is missing`);
  }
  return id;
}

/** The invoice of a session's `revision`th amount: `ms.<session>.r<revision>`, the session readable in it. */
export function invoiceForeignId(sessionId: unknown, revision: number): string {
  if (!Number.isInteger(revision) || revision < 1 || revision > MAX_REVISION) {
    throw new MerchantPaymentsError(
      'unexpected_state',
      'revision_out_of_range',
      `revision ${revision} out of range`,
    );
  }
  return `ms.${key(required(sessionId, "The payment session's id"))}.r${revision}`;
}

/** The refund for Medusa's refund, named by its idempotency key (the refund's id). */
export function refundForeignId(idempotencyKey: unknown): string {
  return `mr.${key(required(idempotencyKey, "The refund's idempotency key"))}`;
}
