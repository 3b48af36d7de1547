import { customerSecretHash, customerSecretMatches } from './customer-secret';
import {
  ConflictError,
  DomainError,
  InProgressError,
  InvalidFieldsError,
  NotReadyError,
  serviceFailure,
  ServiceError,
} from './errors';
import type { EndedRefund, RefundReservations } from './invoices';
import type {
  ClaimLink,
  FoundWithdrawal,
  NewsOutcome,
  OrderRefundRequest,
  Receiver,
  RefundRecord,
  RefundRequest,
  StatusChange,
} from './model';
import type { CustomerSecrets, Owned, ProcessingAccounts, ProcessingApi, RefundStore } from './ports';
import type { Unaddressed } from './refund-bound';
import { CLAIM_CLOSED_MESSAGES, claimOpen, closedAs, linkHolder, readClaim } from './refund-claims';
import { ClaimedRecords, mayHaveBeenSent, type ClaimTiming } from './records';
import { isFinal, refundMovesForward } from './status';
import { DEFAULT_TRAVEL_RULE, type AccountKind, type TravelRule } from './stores';
import { checkReceiver } from './travel-rule';
import { refundEvents } from './webhooks';

const HELD_ELSEWHERE = 'The service holds this foreign_id for another withdrawal';
const CLAIM_TAKEN = 'This claim has already been given another address';
const CLAIM_CLOSED = 'This claim link has expired or was cancelled';
const CLAIM_RECEIVER =
  'is given by the customer with the address, on the claim page, for a refund without an address';

export function isOrderRefund(request: RefundRecord['request']): request is OrderRefundRequest {
  return 'invoiceForeignId' in request;
}

/** The withdrawal the refund sends; none for an order's refund not yet reserved, which has sent nothing. */
export function withdrawalOf(record: RefundRecord): RefundRequest | undefined {
  return isOrderRefund(record.request) ? record.sends : record.request;
}

/**
 * Refunds, each sent once per foreign_id. An order's refund is first reserved on the order (`orders`), within what
 * the order netted: claim, reserve, write what it sends, send. A refund that ends failed, declined, cancelled or
 * refused frees its reservation first, and only then is recorded so, so that a reservation never outlives a refund
 * that may still be sent; one whose send stays unknown keeps it until a retry or a lookup settles it. One held for
 * approval keeps it too.
 */
export class RefundService {
  private readonly refunds: ClaimedRecords<RefundRecord>;

  constructor(
    private readonly store: RefundStore,
    private readonly accounts: ProcessingAccounts,
    private readonly timing: ClaimTiming,
    private readonly orders: RefundReservations,
    private readonly options: {
      /** False when no webhook endpoint is set: then no change makes an event. */
      announce?: boolean;
      /** Told when a callback came to another account than the refund's: it is never applied. */
      onNewsMismatch?: (foreignId: string, reason: 'account') => void;
      /**
       * Claim links, which an order refund without an address needs: how each token is derived
       * (secrets/customer-secrets.ts), and how many days a link works, read as each link is made.
       */
      claimLinks?: { tokens: CustomerSecrets; days: () => Promise<number> };
      /** The store's travel-rule setting now (domain/travel-rule.ts). */
      travelRule?: () => Promise<TravelRule>;
    } = {},
  ) {
    const { announce = true } = options;
    this.refunds = new ClaimedRecords(
      store,
      timing,
      'Refund',
      { withdrawal: null },
      announce ? refundEvents : undefined,
      ['receiver'],
    );
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
      checkReceiver(await this.travelRule(), receiver);
    }
    // What an earlier attempt meant to send is kept for the lookup of a send that may have happened; a refused
    // one's is not, or a claim that dies before writing its own would leave the sweep that to send. A retry that
    // names no receiver sends the one the earlier attempt may have sent.
    const [account, unpinned] = await Promise.all([this.accounts.current(), this.accounts.unpinned()]);
    const claimed = await this.refunds.claim(
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
      const adopted = await this.adoptSent(record);
      if (adopted) return { record: adopted, created: true };
    }
    if (isOrderRefund(record.request)) {
      record = await this.reserve(record, record.request, claimed.previous);
      if (record.phase === 'claimable') return { record, created: true };
    }
    return { record: await this.send(record), created: true };
  }

  /**
   * The token of an open claim link, derived again each time it is asked for; null for any other refund, and when
   * the store's keys have changed since the link was made (the link still works; only its first answer had it).
   */
  async claimToken(record: RefundRecord): Promise<string | null> {
    const links = this.options.claimLinks;
    if (!claimOpen(record, this.timing.now()) || !links) return null;
    const token = await links.tokens.secretFor(linkHolder(record.foreignId, record.claimLink));
    return customerSecretMatches(token, record.claimLink.tokenHash) ? token : null;
  }

  /**
   * The customer's address for a claim link: the withdrawal is sent once, however often the form comes. Only one
   * caller moves the refund from `claimable` to `sending`; a repeat finds it sending or sent and answers it; one
   * after a lost answer with the same address settles it as a retried create does. An address the payment service
   * refuses reopens the claim, with the service's words in `error`.
   */
  async claim(
    foreignId: string,
    token: string | undefined,
    { address, receiver }: { address: string; receiver?: Receiver },
  ): Promise<RefundRecord> {
    const record = await readClaim(this.store, foreignId, token);
    // A refund the payment service refused for the store's reasons has ended: every later submit is answered with it.
    if (record.phase === 'rejected' && !record.claimLink?.closed) return record;
    const sends = withdrawalOf(record);
    if (sends && sends.address !== address) throw new ConflictError('claim_taken', CLAIM_TAKEN);
    if (record.phase === 'sent') return record;
    if (record.phase === 'sending' && this.leaseHeld(record)) {
      // Another submit holds it: its answer, once written, is this one's too.
      if (!sends) throw new InProgressError(1);
      return record;
    }
    if (record.phase === 'unknown' || record.phase === 'sending') {
      return this.resumeClaim(record, { address, receiver });
    }
    if (!claimOpen(record, this.timing.now())) throw new ConflictError('claim_closed', CLAIM_CLOSED);
    checkReceiver(await this.travelRule(), receiver);
    const taken = await this.refunds.save(record, {
      ...record,
      phase: 'sending',
      claimedAt: this.timing.now(),
      error: null,
      updatedAt: this.timing.now(),
      ...(receiver && { receiver }),
    });
    if (!taken.won) return this.claim(foreignId, token, { address, receiver });
    return this.sendClaimed(taken.record, address);
  }

  /** A claim taken under a lease with no address written yet: the address written, then the withdrawal sent. */
  private async sendClaimed(record: RefundRecord, address: string): Promise<RefundRecord> {
    const addressed = await this.reserve(record, { ...this.orderRequest(record), address }, undefined);
    return this.sendForCustomer(addressed);
  }

  /** A refusal the customer cannot mend has ended the refund: the customer is answered with it ended. */
  private async sendForCustomer(record: RefundRecord): Promise<RefundRecord> {
    try {
      return await this.send(record);
    } catch (error) {
      if (refusal(error) === undefined) throw error;
      const ended = await this.refunds.read(record.foreignId);
      if (ended.phase !== 'rejected') throw error;
      return ended;
    }
  }

  /** The store cancels an open claim link: no address is taken after this, and its amount is released. */
  async cancelClaim(foreignId: string): Promise<RefundRecord> {
    const now = this.timing.now();
    const marked = await this.refunds.mutate(foreignId, (current) =>
      claimOpen(current, now)
        ? {
            ...current,
            claimLink: { ...current.claimLink, cancelledAt: now, closed: 'cancelled' },
            updatedAt: now,
          }
        : undefined,
    );
    const current = marked ?? (await this.refunds.read(foreignId));
    if (current.phase === 'claimable') return this.closeClaim(current);
    if (current.claimLink?.closed === 'cancelled') return current;
    throw new ConflictError('claim_closed', 'Only an open claim link can be cancelled');
  }

  /**
   * Closes a claim link cancelled or expired. It is marked closed first, so that no address is taken once its
   * amount is released; then its reservation is freed, and then the refund recorded as ended unsent.
   */
  private async closeClaim(record: RefundRecord): Promise<RefundRecord> {
    const now = this.timing.now();
    if (record.phase !== 'claimable' || claimOpen(record, now)) return record;
    const marked = record.claimLink?.closed
      ? record
      : await this.refunds.mutate(record.foreignId, (current) =>
          current.phase === 'claimable' && current.claimLink && !current.claimLink.closed
            ? {
                ...current,
                claimLink: { ...current.claimLink, closed: closedAs(current.claimLink) },
                updatedAt: now,
              }
            : undefined,
        );
    const closed = marked?.claimLink?.closed;
    if (!marked || !closed) return this.refunds.read(record.foreignId);
    await this.endOnOrder(marked, undefined, `claim_${closed}`);
    const ended = await this.refunds.mutate(record.foreignId, (current) =>
      current.phase === 'claimable'
        ? {
            ...current,
            phase: 'rejected',
            error: CLAIM_CLOSED_MESSAGES[closed],
            updatedAt: this.timing.now(),
          }
        : undefined,
    );
    return ended ?? (await this.refunds.read(record.foreignId));
  }

  /**
   * A claim whose submit ended without an answer: taken under a fresh lease; one that wrote no address yet goes on
   * with this one, one whose send may have reached the service is settled as a retried create is.
   */
  private async resumeClaim(
    record: RefundRecord,
    { address, receiver }: { address: string; receiver?: Receiver },
  ): Promise<RefundRecord> {
    const unaddressed = !withdrawalOf(record);
    if (unaddressed) {
      // Nothing was sent: this submit is taken as a first one would be.
      const link = record.claimLink;
      if (!link || link.closed || this.timing.now() >= link.expiresAt) {
        throw new ConflictError('claim_closed', CLAIM_CLOSED);
      }
      checkReceiver(await this.travelRule(), receiver);
    }
    const taken = await this.refunds.retake(record);
    if (!taken.won) return taken.record;
    if (unaddressed) {
      const withReceiver = receiver ? { ...taken.record, receiver } : taken.record;
      return this.sendClaimed(withReceiver, address);
    }
    const adopted = await this.adoptSent(taken.record);
    return adopted ?? this.sendForCustomer(taken.record);
  }

  /** A claim whose submit stopped before it wrote the address: open again for the customer, never given up. */
  private async reopenUnsentClaim(record: RefundRecord): Promise<RefundRecord | undefined> {
    if (this.leaseHeld(record)) return record;
    const taken = await this.refunds.retake(record);
    if (!taken.won) return taken.record;
    return this.reopenClaim(taken.record, null);
  }

  /** A new claim link for the refund reserved as `reserved`: its token kept only as a hash. */
  private async newClaimLink(record: RefundRecord, reserved: Unaddressed): Promise<ClaimLink> {
    const links = this.options.claimLinks;
    if (!links) throw new Error('A refund service without claimLinks makes no claim link');
    const { tokens } = links;
    const days = await links.days();
    // Its own time, not the record's: a foreign_id taken over from a closed link gets a new token and a full term.
    const madeAt = this.timing.now();
    return {
      tokenHash: customerSecretHash(
        await tokens.secretFor({ foreignId: record.foreignId, createdAt: madeAt }),
      ),
      madeAt,
      expiresAt: madeAt + days * 86_400_000,
      reserved,
    };
  }

  private orderRequest(record: RefundRecord): OrderRefundRequest {
    if (!isOrderRefund(record.request)) throw new Error('A claim link belongs to an order refund');
    return record.request;
  }

  private async travelRule(): Promise<TravelRule> {
    return (await this.options.travelRule?.()) ?? DEFAULT_TRAVEL_RULE;
  }

  private leaseHeld(record: RefundRecord): boolean {
    return this.timing.now() - record.claimedAt < this.timing.leaseMs;
  }

  /**
   * Reserves the claimed refund on its order (a retry finds its reservation) and writes what it sends, before it is
   * sent. A refusal leaves nothing behind: the record the claim took over is put back, or the claim deleted, and
   * the foreign_id is free again.
   */
  private async reserve(
    record: RefundRecord,
    ask: OrderRefundRequest,
    previous: RefundRecord | undefined,
  ): Promise<RefundRecord> {
    let reserved: { sends: Unaddressed; account: AccountKind };
    try {
      reserved = await this.orders.reserveRefund(ask, record.createdAt);
    } catch (error) {
      // Refused (over the bound, not refundable, no such order): nothing was reserved. A claim link's refund is
      // kept: its reservation was made with the link, and the reconcile job reopens it.
      if (error instanceof DomainError && !record.claimLink) {
        await this.undoClaim(record, previous).catch(() => undefined);
      } else {
        await this.refunds.release(record, undefined);
      }
      throw error;
    }
    const { sends, account } = reserved;
    // Without an address the refund waits for its customer's, through a claim link; what it sends is written then.
    const { address } = ask;
    const addressed: Partial<RefundRecord> =
      address !== undefined
        ? { sends: { ...sends, address } }
        : { phase: 'claimable', claimLink: await this.newClaimLink(record, sends) };
    const saved = await this.refunds.save(record, {
      ...record,
      ...addressed,
      account,
      updatedAt: this.timing.now(),
    });
    if (!saved.won) throw new InProgressError(1);
    return saved.record;
  }

  /** The refund as stored, refreshed from the service while it is not final. */
  async get(foreignId: string): Promise<RefundRecord> {
    const record = await this.refunds.read(foreignId);
    if (record.phase !== 'sent' || isFinal(record.status)) return record;
    return (await this.refresh(record, 'lookup')) ?? record;
  }

  /** Open records of every store the sweep is due to look at, by `now`, the longest due first. */
  listDue(limit: number, now: number): Promise<Array<Owned<RefundRecord>>> {
    return this.refunds.listDue(limit, now);
  }

  /** Marks the record looked at; `seen` as the sweep last read or wrote it (see `ClaimedRecords.markSwept`). */
  markSwept(foreignId: string, seen?: RefundRecord): Promise<void> {
    return this.refunds.markSwept(foreignId, seen);
  }

  /**
   * Asks the service for the withdrawal's status and records it. A send whose answer was lost is settled: our
   * withdrawal is adopted, someone else's under the same foreign_id refuses the refund for good, and one no lookup
   * finds is sent again. An order's refund that never got as far as writing what it sends has sent nothing: the
   * sweep gives it up. `listed`: the sweep's record is applied to as it listed it, not read again (see `mutate`).
   */
  async refresh(
    record: RefundRecord,
    source: StatusChange['source'],
    { listed = false } = {},
  ): Promise<RefundRecord | undefined> {
    if (record.phase === 'claimable') return this.closeClaim(record);
    const sends = withdrawalOf(record);
    if (!sends) return record.claimLink ? this.reopenUnsentClaim(record) : this.giveUpUnsent(record);
    const found = await this.processingOf(record).findWithdrawal(sends);
    if (!found) return record.phase === 'sent' ? record : this.resendUnfound(record);
    if (record.phase === 'sent') {
      const seen = listed ? record : undefined;
      return (await this.applyNews(record.foreignId, found.status, source, found.error, seen)).record;
    }
    if (!mayHaveBeenSent(record)) return undefined;
    await this.endOnOrder(record, found.withdrawal ? found.status : undefined);
    return this.refunds.mutate(record.foreignId, (current) =>
      mayHaveBeenSent(current) ? this.settled(current, found, source) : undefined,
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
   * Records a status from the service, moving only forward, ending the refund's reservation first; tells what it
   * was: `applied`, a `duplicate` the refund already holds, or `ignored`. Nothing is written when nothing moves.
   * `seen`: the refund as just read, then not read again (see `mutate`).
   */
  async applyNews(
    foreignId: string,
    status: string,
    source: StatusChange['source'],
    error?: string,
    seen?: RefundRecord,
  ): Promise<{ outcome: NewsOutcome; record?: RefundRecord }> {
    const stored = seen ?? (await this.store.get(foreignId));
    if (stored?.phase === 'sent' && !isFinal(stored.status)) await this.endOnOrder(stored, status);
    let held = false;
    const record = await this.refunds.mutate(
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

  /**
   * Ends an order refund's reservation once the service has ended the refund: `status` is the withdrawal's, or
   * undefined when the refund was refused or its claim link closed (nothing sent). Nothing while the refund may still
   * go out.
   */
  private async endOnOrder(
    record: RefundRecord,
    status: string | undefined,
    closedClaim?: 'claim_expired' | 'claim_cancelled',
  ): Promise<void> {
    if (!isOrderRefund(record.request) || (status !== undefined && !isFinal(status))) return;
    const state: EndedRefund =
      closedClaim ??
      (status === 'confirmed' || status === 'declined' || status === 'cancelled' ? status : 'failed');
    await this.orders.endRefund(record.request.invoiceForeignId, record.foreignId, state);
  }

  /**
   * An order refund whose claim never wrote what it sends (a crash between the claim and the reservation's end):
   * taken under a fresh lease, so that no retry sends meanwhile, its reservation, if any, freed, and discarded.
   */
  private async giveUpUnsent(record: RefundRecord): Promise<RefundRecord | undefined> {
    const taken = await this.refunds.retake(record);
    if (!taken.won) return taken.record;
    await this.endOnOrder(taken.record, undefined);
    await this.discardUnsent(taken.record, 'The refund was never sent');
    return undefined;
  }

  /**
   * Frees the foreign_id of a claim that sent nothing. A claim that took over a record whose events are not all
   * delivered yet (an earlier refusal's, say) is kept as refused instead, so that the dispatcher still has them.
   */
  private async discardUnsent(record: RefundRecord, reason: string): Promise<void> {
    if (record.outbox?.pending.length) await this.refunds.release(record, reason);
    else await this.store.remove(record.foreignId, record.version);
  }

  /**
   * Takes back a claim refused before anything was reserved or sent: the record it took over is put back as it
   * was, with the events it had not yet delivered and what it had announced (so the refusal makes no event of its
   * own: the caller has the answer), or the claim is deleted.
   */
  private async undoClaim(record: RefundRecord, previous: RefundRecord | undefined): Promise<void> {
    if (!previous) {
      await this.store.remove(record.foreignId, record.version);
      return;
    }
    const outbox = record.outbox && { ...record.outbox, announced: previous.outbox?.announced ?? {} };
    await this.store.update({ ...previous, version: record.version + 1, outbox }, record.version, record);
  }

  /**
   * A send whose outcome stayed unknown, and that no lookup finds at the sweep's second look since its claim (the
   * first gave the service a stale period to show it): the service never got it, so it is sent again under the
   * same foreign_id, which the service would refuse as a duplicate had it got it after all. Taken first under a
   * fresh lease, so that no retry sends meanwhile; until then the refund keeps its reservation.
   */
  private async resendUnfound(record: RefundRecord): Promise<RefundRecord> {
    const lookedAtSinceClaim = record.sweptAt !== undefined && record.sweptAt >= record.claimedAt;
    if (!mayHaveBeenSent(record) || !lookedAtSinceClaim || this.leaseHeld(record)) return record;
    const taken = await this.refunds.retake(record);
    if (!taken.won) return taken.record;
    try {
      return await this.send(taken.record);
    } catch (error) {
      // Refused, or the foreign_id is someone else's: settled for good, which is all the sweep asks.
      const settled = await this.store.get(record.foreignId);
      if (settled?.phase === 'rejected') return settled;
      throw error;
    }
  }

  /**
   * Under a claim we hold: settles the refund from the withdrawal the service already has under its foreign_id,
   * or answers undefined if it has none. Someone else's withdrawal there is a conflict.
   */
  private async adoptSent(record: RefundRecord): Promise<RefundRecord | undefined> {
    let found: FoundWithdrawal | undefined;
    try {
      found = await this.processingOf(record).findWithdrawal(withdrawalOf(record)!);
    } catch (error) {
      // Whatever the lookup's failure, the earlier send may have gone through: its outcome stays unknown.
      await this.release(record, undefined);
      throw error;
    }
    if (!found) return undefined;
    await this.endOnOrder(record, found.withdrawal ? found.status : undefined);
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

  /**
   * Sends the withdrawal. A refusal of what the customer gave on a claim link reopens the claim; any other refusal
   * (the account's balance, say) ends the refund, for the store to act on.
   */
  private async send(record: RefundRecord): Promise<RefundRecord> {
    try {
      const created = await this.processingOf(record).createWithdrawal(
        withdrawalOf(record)!,
        record.receiver,
      );
      const answered = this.refunds.answered(record, created, 'create', { withdrawal: created.details });
      return (await this.refunds.save(record, answered)).record;
    } catch (error) {
      // "foreign_id taken" and the client did not adopt the withdrawal there: whose it is settles the refund now.
      if (serviceFailure(error) === 'duplicate_foreign_id') {
        const settled = await this.adoptSent(record);
        if (settled) return settled;
      }
      const refused = refusal(error);
      if (record.claimLink && refused !== undefined && customerMayMend(error)) {
        return this.reopenClaim(record, refused);
      }
      await this.release(record, refused);
      throw error;
    }
  }

  /** A claim open again, the amount still reserved: `refused`, the payment service's words on the address given. */
  private async reopenClaim(record: RefundRecord, refused: string | null): Promise<RefundRecord> {
    const { sends: _refusedAddress, ...unaddressed } = record;
    const { record: reopened } = await this.refunds.save(record, {
      ...unaddressed,
      phase: 'claimable',
      error: refused,
      updatedAt: this.timing.now(),
    });
    return reopened;
  }

  /** The account the refund's withdrawal goes from: the order's, or the one its payout was claimed on. */
  private processingOf(record: RefundRecord): ProcessingApi {
    return this.accounts.of(record.account);
  }

  /** As ClaimedRecords.release; a refused refund frees its reservation first. */
  private async release(record: RefundRecord, refused: string | undefined): Promise<void> {
    if (refused !== undefined) await this.endOnOrder(record, undefined);
    await this.refunds.release(record, refused);
  }
}

/** The withdrawal's fields a claim link's customer gives: the address and the travel rule's receiver. */
const CUSTOMER_FIELDS = /^(address|receiver_)/;

/** Only a refusal naming the customer's fields alone is the customer's to mend; one naming the store's is not. */
function customerMayMend(error: unknown): boolean {
  if (!(error instanceof ServiceError)) return false;
  const fields = Object.keys(error.fields);
  return fields.length > 0 && fields.every((field) => CUSTOMER_FIELDS.test(field));
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
