import {
  ProcessingBadContentError,
  ProcessingNotFoundError,
  ProcessingValidationError,
} from '../processing/errors';
import type { TransactionRecord, WithdrawalRequest } from '../processing/types';
import { isWithdrawalFor, withdrawalFromTransaction } from '../processing/withdrawal';
import { ConflictError, NotFoundError, NotReadyError } from './errors';
import { requestHash } from './hash';
import type { RefundRecord, RefundRequest, StatusChange } from './model';
import type { ProcessingApi, RefundStore } from './ports';
import { claim, markSwept, mayHaveBeenSent, mutate, save, type ClaimTiming } from './records';
import { isFinal } from './status';

const HELD_ELSEWHERE = 'The service holds this foreign_id for another withdrawal';

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

  /**
   * Asks the service for the withdrawal's status and records it. A send whose answer was lost is settled: our
   * withdrawal is adopted, someone else's under the same foreign_id refuses the refund for good.
   */
  async refresh(record: RefundRecord, source: StatusChange['source']): Promise<RefundRecord | undefined> {
    const transaction = await this.lookUp(record.foreignId);
    if (!transaction) return record;
    if (record.phase === 'sent') {
      return this.applyStatus(record.foreignId, transaction.status, source, transaction.error || undefined);
    }
    return mutate(this.refunds, record.foreignId, (current) =>
      mayHaveBeenSent(current) ? this.settled(current, transaction, source) : undefined,
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

  /**
   * Under a claim we hold: settles the refund from the withdrawal the service already has under its foreign_id,
   * or answers undefined if it has none. Someone else's withdrawal there is a conflict.
   */
  private async adoptSent(record: RefundRecord): Promise<RefundRecord | undefined> {
    let transaction: TransactionRecord | undefined;
    try {
      transaction = await this.lookUp(record.foreignId);
    } catch (error) {
      await this.release(record, error);
      throw error;
    }
    if (!transaction) return undefined;
    const { record: saved } = await save(this.refunds, record, this.settled(record, transaction, 'lookup'));
    if (saved.phase === 'rejected') throw new ConflictError('duplicate_foreign_id', HELD_ELSEWHERE);
    return saved;
  }

  /**
   * The record once a lookup found `transaction` under its foreign_id: ours only if it is the withdrawal the
   * request asked for; else a final refusal that shows nothing of the other withdrawal.
   */
  private settled(
    record: RefundRecord,
    transaction: TransactionRecord,
    source: StatusChange['source'],
  ): Omit<RefundRecord, 'version'> {
    const at = this.timing.now();
    if (!isWithdrawalFor(transaction, toServiceRequest(record.request))) {
      return {
        ...record,
        phase: 'rejected',
        status: null,
        withdrawal: null,
        error: HELD_ELSEWHERE,
        updatedAt: at,
      };
    }
    return {
      ...record,
      phase: 'sent',
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
      // "foreign_id taken" and the client did not adopt the withdrawal there: whose it is settles the refund now.
      if (error instanceof ProcessingValidationError && error.isDuplicateForeignId) {
        const settled = await this.adoptSent(record);
        if (settled) return settled;
      }
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
