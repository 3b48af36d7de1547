import {
  ProcessingBadContentError,
  ProcessingNotFoundError,
  ProcessingValidationError,
} from '../processing/errors';
import type { TransactionRecord, WithdrawalRequest } from '../processing/types';
import { withdrawalFromTransaction } from '../processing/withdrawal';
import { NotFoundError, NotReadyError } from './errors';
import { requestHash } from './hash';
import type { RefundRecord, RefundRequest, StatusChange } from './model';
import type { ProcessingApi, RefundStore } from './ports';
import { claim, markSwept, mayHaveBeenSent, mutate, save, type ClaimTiming } from './records';
import { isFinal } from './status';

export class RefundService {
  constructor(
    private readonly refunds: RefundStore,
    private readonly processing: ProcessingApi,
    private readonly timing: ClaimTiming,
  ) {}

  /** Sends the refund once per foreign_id; a repeat of the same request answers the same refund. */
  async create(request: RefundRequest): Promise<{ record: RefundRecord; created: boolean }> {
    const now = this.timing.now();
    const fresh: RefundRecord = {
      foreignId: request.foreignId,
      version: 1,
      phase: 'sending',
      requestHash: requestHash(request),
      request,
      claimedAt: now,
      status: null,
      withdrawal: null,
      error: null,
      history: [],
      createdAt: now,
      updatedAt: now,
    };
    const claimed = await claim(this.refunds, fresh, this.timing, (existing) => ({
      ...fresh,
      version: existing.version + 1,
      createdAt: existing.createdAt,
    }));
    if (!claimed.owned) return { record: claimed.record, created: false };
    if (mayHaveBeenSent(claimed.previous)) {
      // An earlier send may have reached the service: find it before anything is sent again.
      const adopted = await this.adoptSent(claimed.record);
      if (adopted) return { record: adopted, created: true };
    }
    return { record: await this.send(claimed.record), created: true };
  }

  /** The refund as stored, refreshed from the service while it is not final. */
  async get(foreignId: string): Promise<RefundRecord> {
    const record = await this.refunds.get(foreignId);
    if (!record) throw new NotFoundError('Refund');
    if (record.phase !== 'sent' || isFinal(record.status)) return record;
    return (await this.refresh(record, 'lookup')) ?? record;
  }

  /** Open records the sweep is due to look at, by `now`, the longest due first. */
  listDue(limit: number, now: number): Promise<RefundRecord[]> {
    return this.refunds.listOpen(limit, now);
  }

  async markSwept(foreignId: string): Promise<void> {
    await markSwept(this.refunds, foreignId, this.timing.now());
  }

  /** Asks the service for the withdrawal's status and records it; a send whose answer was lost is adopted. */
  async refresh(record: RefundRecord, source: StatusChange['source']): Promise<RefundRecord | undefined> {
    const transaction = await this.lookUp(record.foreignId);
    if (!transaction) return record;
    if (record.phase === 'sent') {
      return this.applyStatus(record.foreignId, transaction.status, source, transaction.error || undefined);
    }
    return mutate(this.refunds, record.foreignId, (current) =>
      current.phase === 'sent' ? undefined : this.asSent(current, transaction, source),
    );
  }

  /** Records a status from the service; final states are final. */
  applyStatus(
    foreignId: string,
    status: string,
    source: StatusChange['source'],
    error?: string,
  ): Promise<RefundRecord | undefined> {
    return mutate(this.refunds, foreignId, (current) => {
      if (current.phase === 'sending' && source === 'callback') throw new NotReadyError('The refund');
      // Withdrawal statuses past creation are not listed by the spec: accept only a move to a final one.
      if (current.phase !== 'sent' || isFinal(current.status) || !isFinal(status)) return undefined;
      const at = this.timing.now();
      return {
        ...current,
        status,
        error: error ?? current.error,
        history: [...current.history, { status, at, source }],
        updatedAt: at,
      };
    });
  }

  /** Under a claim we hold: records the withdrawal the service already has, or answers undefined if it has none. */
  private async adoptSent(record: RefundRecord): Promise<RefundRecord | undefined> {
    let transaction: TransactionRecord | undefined;
    try {
      transaction = await this.lookUp(record.foreignId);
    } catch (error) {
      await this.release(record, error);
      throw error;
    }
    if (!transaction) return undefined;
    return (await save(this.refunds, record, this.asSent(record, transaction, 'lookup'))).record;
  }

  private asSent(record: RefundRecord, transaction: TransactionRecord, source: StatusChange['source']) {
    const at = this.timing.now();
    return {
      ...record,
      phase: 'sent' as const,
      status: transaction.status,
      withdrawal: withdrawalFromTransaction(transaction),
      error: transaction.error || null,
      history: [...record.history, { status: transaction.status, at, source }],
      updatedAt: at,
    };
  }

  private async lookUp(foreignId: string): Promise<TransactionRecord | undefined> {
    try {
      return await this.processing.getTransaction({ foreign_id: foreignId });
    } catch (error) {
      if (error instanceof ProcessingNotFoundError) return undefined;
      throw error;
    }
  }

  private async send(record: RefundRecord): Promise<RefundRecord> {
    try {
      const withdrawal = await this.processing.createWithdrawal(toServiceRequest(record.request));
      const at = this.timing.now();
      const { record: saved } = await save(this.refunds, record, {
        ...record,
        phase: 'sent',
        status: withdrawal.status,
        withdrawal,
        error: null,
        history: [{ status: withdrawal.status, at, source: 'create' }],
        updatedAt: at,
      });
      return saved;
    } catch (error) {
      await this.release(record, error);
      throw error;
    }
  }

  /** Marks how a send ended. "foreign_id taken" means a withdrawal exists: unknown, for a lookup to settle. */
  private async release(record: RefundRecord, error: unknown): Promise<void> {
    const refused =
      (error instanceof ProcessingValidationError && !error.isDuplicateForeignId) ||
      error instanceof ProcessingBadContentError;
    try {
      await save(this.refunds, record, {
        ...record,
        phase: refused ? 'rejected' : 'unknown',
        error: refused ? (error as Error).message : null,
        updatedAt: this.timing.now(),
      });
    } catch {
      // The lease runs out instead; the caller still gets the service's error.
    }
  }
}

function toServiceRequest(request: RefundRequest): WithdrawalRequest {
  return {
    foreign_id: request.foreignId,
    sender_currency: request.senderCurrency,
    received_currency: request.receivedCurrency,
    sender_amount: request.senderAmount,
    address: request.address,
    end_user_reference: request.endUserReference,
  };
}
