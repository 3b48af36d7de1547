import { createHash, timingSafeEqual } from 'node:crypto';
import { parseJson } from '../processing/json';
import { verifySignature } from '../processing/signing';
import { DomainError } from './errors';
import type { InvoiceService } from './invoices';
import { paymentOf } from './payment';
import type { KeySource, ProcessingKeys, ReceiptStore } from './ports';
import type { RefundService } from './refunds';
import { isInvoiceStatus } from './status';

export class CallbackSignatureError extends DomainError {
  constructor() {
    super('invalid_signature', 'The callback signature is missing or wrong');
  }
}

export type CallbackOutcome = 'applied' | 'duplicate' | 'ignored';

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
}

export class CallbackService {
  constructor(
    private readonly keys: KeySource,
    private readonly receipts: ReceiptStore,
    private readonly invoices: InvoiceService,
    private readonly refunds: RefundService,
  ) {}

  /** Verifies, dedupes and applies one delivery. `headers` must have lower-case names. */
  async receive(rawBody: Buffer, headers: Record<string, string | undefined>): Promise<CallbackOutcome> {
    await this.verify(rawBody, headers['x-processing-key'], headers['x-processing-signature']);
    const payload = parsePayload(rawBody);
    if (!payload) return 'ignored';
    const receiptId = createHash('sha256').update(rawBody).digest('hex');
    if (!(await this.receipts.claim(receiptId))) return 'duplicate';
    let outcome: CallbackOutcome;
    try {
      outcome = await this.apply(payload);
    } catch (error) {
      await this.receipts.release(receiptId);
      throw error;
    }
    await this.receipts.complete(receiptId);
    return outcome;
  }

  private async verify(body: Buffer, key: string | undefined, signature: string | undefined): Promise<void> {
    if (!key || !signature) throw new CallbackSignatureError();
    if (signedBy(await this.keys.get(), body, key, signature)) return;
    // The keys may have been rotated since they were cached.
    if (!signedBy(await this.keys.refresh(), body, key, signature)) throw new CallbackSignatureError();
  }

  private async apply(payload: CallbackPayload): Promise<CallbackOutcome> {
    const { foreign_id: foreignId, type, status } = payload;
    if (typeof foreignId !== 'string' || typeof status !== 'string') return 'ignored';
    const error = typeof payload.error === 'string' && payload.error !== '' ? payload.error : undefined;
    if (type === 'invoice') {
      if (!isInvoiceStatus(status)) return 'ignored';
      const updated = await this.invoices.applyStatus({
        upstreamForeignId: foreignId,
        status,
        source: 'callback',
        error,
        payment: paymentOf(payload.currency_sent),
      });
      return updated ? 'applied' : 'ignored';
    }
    if (typeof type === 'string' && WITHDRAWAL_TYPES.has(type)) {
      return (await this.refunds.applyStatus(foreignId, status, 'callback', error)) ? 'applied' : 'ignored';
    }
    return 'ignored';
  }
}

function signedBy(keys: ProcessingKeys, body: Buffer, key: string, signature: string): boolean {
  return (
    constantTimeEqual(Buffer.from(key), Buffer.from(keys.apiKey)) &&
    verifySignature(keys.secretKey, body, signature)
  );
}

function constantTimeEqual(a: Buffer, b: Buffer): boolean {
  const digest = (value: Buffer) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
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
