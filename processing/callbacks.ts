// The service's callbacks: signed like our requests (processing/signing.ts), read into the domain's events.
import { CallbackSignatureError, InvalidFieldsError } from '../domain/errors';
import type { CallbackEvent } from '../domain/model';
import type { KeySource, ProcessingKeys } from '../domain/ports';
import { depositIdsOf } from './deposits';
import { ProcessingTimeRangeError, SERVICE_TIME_RULE } from './errors';
import { parseJson } from './json';
import { isSignedBy, signatureIn } from './signing';
import { errorText, moneyNews } from './translate';

const WITHDRAWAL_TYPES = new Set([
  'withdrawal',
  'withrawal_exchange',
  'withdrawal_exchange',
  'withdrawal_instant_exchange',
]);

interface CallbackPayload {
  foreign_id?: unknown;
  type?: unknown;
  status?: unknown;
  error?: unknown;
  currency_sent?: { currency?: unknown; amount?: unknown; remaining_amount?: unknown };
  currency_received?: { currency?: unknown; amount?: unknown };
  fees?: unknown;
  transactions?: unknown;
  expires_at?: unknown;
}

/**
 * Verifies a delivery's signature over its raw bytes and reads it. Throws CallbackSignatureError unless it is
 * signed with the current keys, looked up once more in case they were rotated since they were cached. Undefined
 * for a signed body that is not a JSON object: there is nothing in it to apply. Throws InvalidFieldsError, naming
 * the field, for a signed time outside the range a record keeps: nothing of it is applied.
 */
export async function verifyCallback(
  rawBody: Buffer,
  headers: Record<string, string | undefined>,
  keys: KeySource,
): Promise<CallbackEvent | undefined> {
  const signature = signatureIn(headers);
  if (!signature) throw new CallbackSignatureError();
  const signedBy = (current: ProcessingKeys) => isSignedBy(current, rawBody, signature);
  if (!signedBy(await keys.get()) && !signedBy(await keys.refresh())) throw new CallbackSignatureError();
  const payload = parsePayload(rawBody);
  if (!payload) return undefined;
  return eventOf(payload);
}

/** Ours are at most 64 characters and an attempt suffix: a longer one names nothing of ours, and is no key to look up. */
const FOREIGN_ID_MAX_LENGTH = 128;

function eventOf(payload: CallbackPayload): CallbackEvent {
  const { foreign_id: foreignId, type, status } = payload;
  if (typeof foreignId !== 'string' || typeof status !== 'string') return { kind: 'other' };
  if (foreignId.length > FOREIGN_ID_MAX_LENGTH) return { kind: 'other' };
  const error = errorText(payload.error);
  if (type === 'invoice') {
    return {
      kind: 'invoice',
      upstreamForeignId: foreignId,
      status,
      error,
      ...invoiceMoneyNews(payload),
      depositIds: depositIdsOf(payload.transactions),
    };
  }
  if (typeof type === 'string' && WITHDRAWAL_TYPES.has(type))
    return { kind: 'withdrawal', foreignId, status, error };
  return { kind: 'other' };
}

/** The callback's money news; a time out of range is the sender's bad input, answered 400. */
function invoiceMoneyNews(payload: CallbackPayload): ReturnType<typeof moneyNews> {
  try {
    return moneyNews(payload, 'callback');
  } catch (error) {
    if (error instanceof ProcessingTimeRangeError)
      throw new InvalidFieldsError({ [error.field]: SERVICE_TIME_RULE });
    throw error;
  }
}

function parsePayload(rawBody: Buffer): CallbackPayload | undefined {
  try {
    // Amounts become exact decimal strings with at least 8 fractional digits, like every answer of the service.
    const value = parseJson(rawBody.toString('utf8'));
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as CallbackPayload)
      : undefined;
  } catch {
    return undefined;
  }
}
