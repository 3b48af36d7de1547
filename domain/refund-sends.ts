// Sending a refund's withdrawal once: reserving it on its order, sending, and settling a send whose answer was lost.
// domain/refunds.ts and domain/claim-links.ts drive it.
import { customerSecretHash } from './customer-secret';
import { ConflictError, DomainError, InProgressError, serviceFailure, ServiceError } from './errors';
import type { EndedRefund, RefundReservations } from './invoices';
import type {
  ClaimLink,
  FoundWithdrawal,
  OrderRefundRequest,
  RefundRecord,
  RefundRequest,
  StatusChange,
} from './model';
import type { CustomerSecrets, ProcessingAccounts, ProcessingApi, RefundStore } from './ports';
import type { Unaddressed } from './refund-bound';
import { ClaimedRecords, mayHaveBeenSent, type ClaimTiming } from './records';
import { isFinal } from './status';
import { DEFAULT_TRAVEL_RULE, type AccountKind, type TravelRule } from './stores';
import { refundEvents } from './webhooks';

const HELD_ELSEWHERE = 'The service holds this foreign_id for another withdrawal';

export interface RefundOptions {
  /** False when no webhook endpoint is set: then no change makes an event. */
  announce?: boolean;
  /** Told when a callback came to another account than the refund's: it is never applied. */
  onNewsMismatch?: (foreignId: string, reason: 'account') => void;
  /**
   * Claim links, which an order refund without an address needs: how each token is derived
   * (secrets/customer-secrets.ts), and how many days a link works, read as each link is made.
   */
  claimLinks?: ClaimLinkSettings;
  /** The store's travel-rule setting now (domain/travel-rule.ts). */
  travelRule?: () => Promise<TravelRule>;
}

export interface ClaimLinkSettings {
  tokens: CustomerSecrets;
  days: () => Promise<number>;
}

export function isOrderRefund(request: RefundRecord['request']): request is OrderRefundRequest {
  return 'invoiceForeignId' in request;
}

/** The withdrawal the refund sends; none for an order's refund not yet reserved, which has sent nothing. */
export function withdrawalOf(record: RefundRecord): RefundRequest | undefined {
  return isOrderRefund(record.request) ? record.sends : record.request;
}

/**
 * A refund's withdrawal, sent once per foreign_id. An order's refund is first reserved on the order, within what the
 * order netted; a refund that ends unsent frees its reservation first, and only then is recorded so.
 */
export class RefundSends {
  readonly records: ClaimedRecords<RefundRecord>;
  private readonly claimLinks?: ClaimLinkSettings;
  private readonly travelRuleNow?: () => Promise<TravelRule>;

  constructor(
    private readonly store: RefundStore,
    private readonly accounts: ProcessingAccounts,
    private readonly timing: ClaimTiming,
    private readonly orders: RefundReservations,
    { announce = true, claimLinks, travelRule }: RefundOptions,
  ) {
    this.claimLinks = claimLinks;
    this.travelRuleNow = travelRule;
    this.records = new ClaimedRecords(
      store,
      timing,
      'Refund',
      { withdrawal: null },
      announce ? refundEvents : undefined,
      ['receiver'],
    );
  }

  async travelRule(): Promise<TravelRule> {
    return (await this.travelRuleNow?.()) ?? DEFAULT_TRAVEL_RULE;
  }

  leaseHeld(record: RefundRecord): boolean {
    return this.timing.now() - record.claimedAt < this.timing.leaseMs;
  }

  /**
   * Reserves the claimed refund on its order (a retry finds its reservation) and writes what it sends, before it is
   * sent. A refusal leaves nothing behind: the record the claim took over is put back, or the claim deleted, and
   * the foreign_id is free again.
   */
  async reserve(
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
        await this.records.release(record, undefined);
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
    const saved = await this.records.save(record, {
      ...record,
      ...addressed,
      account,
      updatedAt: this.timing.now(),
    });
    if (!saved.won) throw new InProgressError(1);
    return saved.record;
  }

  /** A new claim link for the refund reserved as `reserved`: its token kept only as a hash. */
  private async newClaimLink(record: RefundRecord, reserved: Unaddressed): Promise<ClaimLink> {
    const links = this.claimLinks;
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

  /**
   * Ends an order refund's reservation once the service has ended the refund: `status` is the withdrawal's, or
   * undefined when the refund was refused or its claim link closed (nothing sent). Nothing while the refund may still
   * go out.
   */
  async endOnOrder(
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
  async giveUpUnsent(record: RefundRecord): Promise<RefundRecord | undefined> {
    const taken = await this.records.retake(record);
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
    if (record.outbox?.pending.length) await this.records.release(record, reason);
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
  async resendUnfound(record: RefundRecord): Promise<RefundRecord> {
    const lookedAtSinceClaim = record.sweptAt !== undefined && record.sweptAt >= record.claimedAt;
    if (!mayHaveBeenSent(record) || !lookedAtSinceClaim || this.leaseHeld(record)) return record;
    const taken = await this.records.retake(record);
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
  async adoptSent(record: RefundRecord): Promise<RefundRecord | undefined> {
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
    const { record: saved } = await this.records.save(record, this.settled(record, found, 'lookup'));
    if (saved.phase === 'rejected') throw new ConflictError('duplicate_foreign_id', HELD_ELSEWHERE);
    return saved;
  }

  /**
   * The record once a lookup found a withdrawal under its foreign_id: ours only if it is the one the request asked
   * for; else a final refusal that shows nothing of the other withdrawal.
   */
  settled(
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
    return this.records.answered(record, found, source, { withdrawal: found.withdrawal });
  }

  /**
   * Sends the withdrawal. A refusal of what the customer gave on a claim link reopens the claim; any other refusal
   * (the account's balance, say) ends the refund, for the store to act on.
   */
  async send(record: RefundRecord): Promise<RefundRecord> {
    try {
      const created = await this.processingOf(record).createWithdrawal(
        withdrawalOf(record)!,
        record.receiver,
      );
      const answered = this.records.answered(record, created, 'create', { withdrawal: created.details });
      return (await this.records.save(record, answered)).record;
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
  async reopenClaim(record: RefundRecord, refused: string | null): Promise<RefundRecord> {
    const { sends: _refusedAddress, ...unaddressed } = record;
    const { record: reopened } = await this.records.save(record, {
      ...unaddressed,
      phase: 'claimable',
      error: refused,
      updatedAt: this.timing.now(),
    });
    return reopened;
  }

  /** The account the refund's withdrawal goes from: the order's, or the one its payout was claimed on. */
  processingOf(record: RefundRecord): ProcessingApi {
    return this.accounts.of(record.account);
  }

  /** As ClaimedRecords.release; a refused refund frees its reservation first. */
  async release(record: RefundRecord, refused: string | undefined): Promise<void> {
    if (refused !== undefined) await this.endOnOrder(record, undefined);
    await this.records.release(record, refused);
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
export function refusal(error: unknown): string | undefined {
  const failure = serviceFailure(error);
  return failure === 'refused' || failure === 'unreadable_request'
    ? (error as ServiceError).reason
    : undefined;
}
