import { InvalidFieldsError, NotReadyError } from './errors';
import type { RefundReservations } from './invoices';
import type {
  NewsOutcome,
  OrderRefundRequest,
  Receiver,
  RefundRecord,
  RefundRequest,
  StatusChange,
} from './model';
import type { Owned, ProcessingAccounts, RefundStore } from './ports';
import { ClaimLinks } from './claim-links';
import { isOrderRefund, RefundSends, withdrawalOf, type RefundOptions } from './refund-sends';
import { mayHaveBeenSent, type ClaimTiming } from './records';
import { isFinal, refundMovesForward } from './status';
import type { AccountKind } from './stores';
import { checkReceiver } from './travel-rule';

const CLAIM_RECEIVER =
  'is given by the customer with the address, on the claim page, for a refund without an address';

/**
 * Refunds, each sent once per foreign_id, and an order's first reserved on the order (`orders`) so that its refunds
 * stay within its net (docs/internals.md, "An order's refunds stay within its net").
 */
export class RefundService {
  private readonly sends: RefundSends;
  private readonly claims: ClaimLinks;

  constructor(
    private readonly store: RefundStore,
    private readonly accounts: ProcessingAccounts,
    private readonly timing: ClaimTiming,
    orders: RefundReservations,
    private readonly options: RefundOptions = {},
  ) {
    this.sends = new RefundSends(store, accounts, timing, orders, options);
    this.claims = new ClaimLinks(this.sends, store, timing, options.claimLinks);
  }

  /**
   * Sends the refund once per foreign_id; a repeat of the same request answers the same refund. The receiver is
   * not part of what makes it the same request: once sent, the record no longer holds it to compare.
   */
  async create(
    asked: (RefundRequest | OrderRefundRequest) & { receiver?: Receiver },
  ): Promise<{ record: RefundRecord; created: boolean }> {
    const { receiver, ...request } = asked;
    if (isOrderRefund(request) && request.address === undefined) {
      // A claim link's customer gives the receiver with the address, on the claim page.
      if (receiver) throw new InvalidFieldsError({ receiver: CLAIM_RECEIVER });
    } else {
      checkReceiver(await this.sends.travelRule(), receiver);
    }
    // What an earlier attempt meant to send is kept for the lookup of a send that may have happened; a refused
    // one's is not, or a claim that dies before writing its own would leave the sweep that to send. A retry that
    // names no receiver sends the one the earlier attempt may have sent.
    const [account, unpinned] = await Promise.all([this.accounts.current(), this.accounts.unpinned()]);
    const claimed = await this.sends.records.claim(
      request,
      { account, unpinned },
      (existing) =>
        mayHaveBeenSent(existing) ? { sends: existing.sends, receiver: receiver ?? existing.receiver } : {},
      receiver && { receiver },
    );
    if (!claimed.owned) return { record: claimed.record, created: false };
    let record = claimed.record;
    if (mayHaveBeenSent(claimed.previous) && withdrawalOf(record)) {
      // An earlier send may have reached the service: find it before anything is sent again.
      const adopted = await this.sends.adoptSent(record);
      if (adopted) return { record: adopted, created: true };
    }
    if (isOrderRefund(record.request)) {
      record = await this.sends.reserve(record, record.request, claimed.previous);
      if (record.phase === 'claimable') return { record, created: true };
    }
    return { record: await this.sends.send(record), created: true };
  }

  /** The refund as stored, refreshed from the service while it is not final. */
  async get(foreignId: string): Promise<RefundRecord> {
    const record = await this.sends.records.read(foreignId);
    if (record.phase !== 'sent' || isFinal(record.status)) return record;
    return (await this.refresh(record, 'lookup')) ?? record;
  }

  /** Open records of every store the sweep is due to look at, by `now`, the longest due first. */
  listDue(limit: number, now: number): Promise<Array<Owned<RefundRecord>>> {
    return this.sends.records.listDue(limit, now);
  }

  /** Marks the record looked at; `seen` as the sweep last read or wrote it (see `ClaimedRecords.markSwept`). */
  markSwept(foreignId: string, seen?: RefundRecord): Promise<void> {
    return this.sends.records.markSwept(foreignId, seen);
  }

  /**
   * Asks the service for the withdrawal's status and records it, settling a send whose answer was lost
   * (docs/internals.md, "One withdrawal per refund"). `listed`: the sweep's record is used as listed, not read
   * again (see `mutate`).
   */
  async refresh(
    record: RefundRecord,
    source: StatusChange['source'],
    { listed = false } = {},
  ): Promise<RefundRecord | undefined> {
    if (record.phase === 'claimable') return this.claims.closeClaim(record);
    const sends = withdrawalOf(record);
    if (!sends)
      return record.claimLink ? this.claims.reopenUnsentClaim(record) : this.sends.giveUpUnsent(record);
    const found = await this.sends.processingOf(record).findWithdrawal(sends);
    if (!found) return record.phase === 'sent' ? record : this.sends.resendUnfound(record);
    if (record.phase === 'sent') {
      const seen = listed ? record : undefined;
      return (await this.applyNews(record.foreignId, found.status, source, found.error, seen)).record;
    }
    if (!mayHaveBeenSent(record)) return undefined;
    await this.sends.endOnOrder(record, found.withdrawal ? found.status : undefined);
    return this.sends.records.mutate(record.foreignId, (current) =>
      mayHaveBeenSent(current) ? this.sends.settled(current, found, source) : undefined,
    );
  }

  /** A callback's news, applied only to a refund whose withdrawal went from the account the callback came to. */
  async applyCallback(
    foreignId: string,
    status: string,
    error: string | undefined,
    via: AccountKind,
  ): Promise<{ outcome: NewsOutcome; record?: RefundRecord }> {
    const stored = await this.store.get(foreignId);
    if (stored && (stored.account ?? (await this.accounts.unpinned())) !== via) {
      this.options.onNewsMismatch?.(foreignId, 'account');
      return { outcome: 'ignored' };
    }
    return this.applyNews(foreignId, status, 'callback', error, stored);
  }

  /**
   * Records a status from the service, moving only forward and ending the refund's reservation first, and answers
   * `applied`, `duplicate` or `ignored`. `seen`: the refund as just read, not read again (see `mutate`).
   */
  async applyNews(
    foreignId: string,
    status: string,
    source: StatusChange['source'],
    error?: string,
    seen?: RefundRecord,
  ): Promise<{ outcome: NewsOutcome; record?: RefundRecord }> {
    const stored = seen ?? (await this.store.get(foreignId));
    if (stored?.phase === 'sent' && !isFinal(stored.status)) await this.sends.endOnOrder(stored, status);
    let held = false;
    const record = await this.sends.records.mutate(
      foreignId,
      (current) => {
        if (current.phase === 'sending' && source === 'callback') throw new NotReadyError('The refund');
        held = current.phase === 'sent' && isFinal(status) && current.status === status;
        // Pending (held for approval) → verifying → processing → final, never back: a repeat or an older word
        // moves nothing.
        if (current.phase !== 'sent' || !refundMovesForward(current.status, status)) return undefined;
        const at = this.timing.now();
        return {
          ...current,
          status,
          error: error ?? current.error,
          history: [...current.history, { status, at, source }],
          updatedAt: at,
        };
      },
      { seen: stored },
    );
    if (record) return { outcome: 'applied', record };
    return { outcome: held ? 'duplicate' : 'ignored' };
  }

  /** As ClaimLinks.claim. */
  claim(...args: Parameters<ClaimLinks['claim']>): Promise<RefundRecord> {
    return this.claims.claim(...args);
  }

  /** As ClaimLinks.cancelClaim. */
  cancelClaim(foreignId: string): Promise<RefundRecord> {
    return this.claims.cancelClaim(foreignId);
  }

  /** As ClaimLinks.claimToken. */
  claimToken(record: RefundRecord): Promise<string | null> {
    return this.claims.claimToken(record);
  }
}
