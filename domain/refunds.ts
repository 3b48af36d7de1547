import { ConflictError, NotReadyError, serviceFailure, type ServiceError } from './errors';
import type { FoundWithdrawal, RefundRecord, RefundRequest, StatusChange } from './model';
import type { ProcessingApi, RefundStore } from './ports';
import { ClaimedRecords, mayHaveBeenSent, type ClaimTiming } from './records';
import { isFinal } from './status';
import { refundEvents } from './webhooks';

const HELD_ELSEWHERE = 'The service holds this foreign_id for another withdrawal';

export class RefundService {
  private readonly refunds: ClaimedRecords<RefundRecord>;

  constructor(
    store: RefundStore,
    private readonly processing: ProcessingApi,
    private readonly timing: ClaimTiming,
  ) {
    this.refunds = new ClaimedRecords(store, timing, 'Refund', { withdrawal: null }, refundEvents);
  }

  /** Sends the refund once per foreign_id; a repeat of the same request answers the same refund. */
  async create(request: RefundRequest): Promise<{ record: RefundRecord; created: boolean }> {
    const claimed = await this.refunds.claim(request);
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
    const record = await this.refunds.read(foreignId);
    if (record.phase !== 'sent' || isFinal(record.status)) return record;
    return (await this.refresh(record, 'lookup')) ?? record;
  }

  /** Open records the sweep is due to look at, by `now`, the longest due first. */
  listDue(limit: number, now: number): Promise<RefundRecord[]> {
    return this.refunds.listDue(limit, now);
  }

  markSwept(foreignId: string): Promise<void> {
    return this.refunds.markSwept(foreignId);
  }

  /**
   * Asks the service for the withdrawal's status and records it. A send whose answer was lost is settled: our
   * withdrawal is adopted, someone else's under the same foreign_id refuses the refund for good.
   */
  async refresh(record: RefundRecord, source: StatusChange['source']): Promise<RefundRecord | undefined> {
    const found = await this.processing.findWithdrawal(record.request);
    if (!found) return record;
    if (record.phase === 'sent') return this.applyStatus(record.foreignId, found.status, source, found.error);
    return this.refunds.mutate(record.foreignId, (current) =>
      mayHaveBeenSent(current) ? this.settled(current, found, source) : undefined,
    );
  }

  /** Records a status from the service; final states are final. */
  applyStatus(
    foreignId: string,
    status: string,
    source: StatusChange['source'],
    error?: string,
  ): Promise<RefundRecord | undefined> {
    return this.refunds.mutate(foreignId, (current) => {
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
    let found: FoundWithdrawal | undefined;
    try {
      found = await this.processing.findWithdrawal(record.request);
    } catch (error) {
      await this.refunds.release(record, refusal(error));
      throw error;
    }
    if (!found) return undefined;
    const { record: saved } = await this.refunds.save(record, this.settled(record, found, 'lookup'));
    if (saved.phase === 'rejected') throw new ConflictError('duplicate_foreign_id', HELD_ELSEWHERE);
    return saved;
  }

  /**
   * The record once a lookup found a withdrawal under its foreign_id: ours only if it is the one the request asked
   * for; else a final refusal that shows nothing of the other withdrawal.
   */
  private settled(
    record: RefundRecord,
    found: FoundWithdrawal,
    source: StatusChange['source'],
  ): Omit<RefundRecord, 'version'> {
    if (!found.withdrawal) {
      return {
        ...record,
        phase: 'rejected',
        status: null,
        withdrawal: null,
        error: HELD_ELSEWHERE,
        updatedAt: this.timing.now(),
      };
    }
    return this.refunds.answered(record, found, source, { withdrawal: found.withdrawal });
  }

  private async send(record: RefundRecord): Promise<RefundRecord> {
    try {
      const created = await this.processing.createWithdrawal(record.request);
      const answered = this.refunds.answered(record, created, 'create', { withdrawal: created.details });
      return (await this.refunds.save(record, answered)).record;
    } catch (error) {
      // "foreign_id taken" and the client did not adopt the withdrawal there: whose it is settles the refund now.
      if (serviceFailure(error) === 'duplicate_foreign_id') {
        const settled = await this.adoptSent(record);
        if (settled) return settled;
      }
      await this.refunds.release(record, refusal(error));
      throw error;
    }
  }
}

/**
 * The service's reason when it refused the refund for good. "foreign_id taken" means a withdrawal exists: its
 * outcome is unknown, for a lookup to settle.
 */
function refusal(error: unknown): string | undefined {
  const failure = serviceFailure(error);
  return failure === 'refused' || failure === 'unreadable_request'
    ? (error as ServiceError).reason
    : undefined;
}
