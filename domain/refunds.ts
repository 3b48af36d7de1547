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
import { claim, mutate, save, type ClaimTiming } from './records';
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
    return { record: await this.send(claimed.record), created: true };
  }

  /** The refund as stored, refreshed from the service while it is not final. */
  async get(foreignId: string): Promise<RefundRecord> {
    const record = await this.refunds.get(foreignId);
    if (!record) throw new NotFoundError('Refund');
    if (record.phase !== 'sent' || isFinal(record.status)) return record;
    return (await this.refresh(record, 'lookup')) ?? record;
  }

  listOpen(limit: number): Promise<RefundRecord[]> {
    return this.refunds.listOpen(limit);
  }

  /** Asks the service for the withdrawal's status and records it; a send whose answer was lost is adopted. */
  async refresh(record: RefundRecord, source: StatusChange['source']): Promise<RefundRecord | undefined> {
    let transaction: TransactionRecord;
    try {
      transaction = await this.processing.getTransaction({ foreign_id: record.foreignId });
    } catch (error) {
      if (error instanceof ProcessingNotFoundError) return record;
      throw error;
    }
    if (record.phase === 'sent') {
      return this.applyStatus(record.foreignId, transaction.status, source, transaction.error || undefined);
    }
    return mutate(this.refunds, record.foreignId, (current) => {
      if (current.phase === 'sent') return undefined;
      const at = this.timing.now();
      return {
        ...current,
        phase: 'sent',
        status: transaction.status,
        withdrawal: withdrawalFromTransaction(transaction),
        error: transaction.error || null,
        history: [{ status: transaction.status, at, source }],
        updatedAt: at,
      };
    });
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
      if (current.phase !== 'sent' || current.status === status || isFinal(current.status)) return undefined;
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
      const refused =
        error instanceof ProcessingValidationError || error instanceof ProcessingBadContentError;
      await save(this.refunds, record, {
        ...record,
        phase: refused ? 'rejected' : 'unknown',
        error: refused ? (error as Error).message : null,
        updatedAt: this.timing.now(),
      });
      throw error;
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
