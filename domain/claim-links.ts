// A refund its customer claims through a link: the customer's address taken once, the link cancelled or expired.
import { ConflictError, InProgressError } from './errors';
import type { OrderRefundRequest, Receiver, RefundRecord } from './model';
import type { RefundStore } from './ports';
import { CLAIM_CLOSED_MESSAGES, claimOpen, closedAs, linkHolder, readClaim } from './refund-claims';
import {
  isOrderRefund,
  refusal,
  withdrawalOf,
  type ClaimLinkSettings,
  type RefundSends,
} from './refund-sends';
import type { ClaimTiming } from './records';
import { customerSecretMatches } from './customer-secret';
import { checkReceiver } from './travel-rule';

const CLAIM_TAKEN = 'This claim has already been given another address';
const CLAIM_CLOSED = 'This claim link has expired or was cancelled';

/** The claim link side of refunds: the customer's submits, the store's cancel, and closing a link that expired. */
export class ClaimLinks {
  constructor(
    private readonly sends: RefundSends,
    private readonly store: RefundStore,
    private readonly timing: ClaimTiming,
    private readonly links: ClaimLinkSettings | undefined,
  ) {}

  /**
   * The token of an open claim link, derived again each time it is asked for; null for any other refund, and when
   * the store's keys have changed since the link was made (the link still works; only its first answer had it).
   */
  async claimToken(record: RefundRecord): Promise<string | null> {
    const links = this.links;
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
    if (record.phase === 'sending' && this.sends.leaseHeld(record)) {
      // Another submit holds it: its answer, once written, is this one's too.
      if (!sends) throw new InProgressError(1);
      return record;
    }
    if (record.phase === 'unknown' || record.phase === 'sending') {
      return this.resumeClaim(record, { address, receiver });
    }
    if (!claimOpen(record, this.timing.now())) throw new ConflictError('claim_closed', CLAIM_CLOSED);
    checkReceiver(await this.sends.travelRule(), receiver);
    const taken = await this.sends.records.save(record, {
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
    const addressed = await this.sends.reserve(record, { ...this.orderRequest(record), address }, undefined);
    return this.sendForCustomer(addressed);
  }

  /** A refusal the customer cannot mend has ended the refund: the customer is answered with it ended. */
  private async sendForCustomer(record: RefundRecord): Promise<RefundRecord> {
    try {
      return await this.sends.send(record);
    } catch (error) {
      if (refusal(error) === undefined) throw error;
      const ended = await this.sends.records.read(record.foreignId);
      if (ended.phase !== 'rejected') throw error;
      return ended;
    }
  }

  /** The store cancels an open claim link: no address is taken after this, and its amount is released. */
  async cancelClaim(foreignId: string): Promise<RefundRecord> {
    const now = this.timing.now();
    const marked = await this.sends.records.mutate(foreignId, (current) =>
      claimOpen(current, now)
        ? {
            ...current,
            claimLink: { ...current.claimLink, cancelledAt: now, closed: 'cancelled' },
            updatedAt: now,
          }
        : undefined,
    );
    const current = marked ?? (await this.sends.records.read(foreignId));
    if (current.phase === 'claimable') return this.closeClaim(current);
    if (current.claimLink?.closed === 'cancelled') return current;
    throw new ConflictError('claim_closed', 'Only an open claim link can be cancelled');
  }

  /**
   * Closes a claim link cancelled or expired. It is marked closed first, so that no address is taken once its
   * amount is released; then its reservation is freed, and then the refund recorded as ended unsent.
   */
  async closeClaim(record: RefundRecord): Promise<RefundRecord> {
    const now = this.timing.now();
    if (record.phase !== 'claimable' || claimOpen(record, now)) return record;
    const marked = record.claimLink?.closed
      ? record
      : await this.sends.records.mutate(record.foreignId, (current) =>
          current.phase === 'claimable' && current.claimLink && !current.claimLink.closed
            ? {
                ...current,
                claimLink: { ...current.claimLink, closed: closedAs(current.claimLink) },
                updatedAt: now,
              }
            : undefined,
        );
    const closed = marked?.claimLink?.closed;
    if (!marked || !closed) return this.sends.records.read(record.foreignId);
    await this.sends.endOnOrder(marked, undefined, `claim_${closed}`);
    const ended = await this.sends.records.mutate(record.foreignId, (current) =>
      current.phase === 'claimable'
        ? {
            ...current,
            phase: 'rejected',
            error: CLAIM_CLOSED_MESSAGES[closed],
            updatedAt: this.timing.now(),
          }
        : undefined,
    );
    return ended ?? (await this.sends.records.read(record.foreignId));
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
      checkReceiver(await this.sends.travelRule(), receiver);
    }
    const taken = await this.sends.records.retake(record);
    if (!taken.won) return taken.record;
    if (unaddressed) {
      const withReceiver = receiver ? { ...taken.record, receiver } : taken.record;
      return this.sendClaimed(withReceiver, address);
    }
    const adopted = await this.sends.adoptSent(taken.record);
    return adopted ?? this.sendForCustomer(taken.record);
  }

  /** A claim whose submit stopped before it wrote the address: open again for the customer, never given up. */
  async reopenUnsentClaim(record: RefundRecord): Promise<RefundRecord | undefined> {
    if (this.sends.leaseHeld(record)) return record;
    const taken = await this.sends.records.retake(record);
    if (!taken.won) return taken.record;
    return this.sends.reopenClaim(taken.record, null);
  }

  private orderRequest(record: RefundRecord): OrderRefundRequest {
    if (!isOrderRefund(record.request)) throw new Error('A claim link belongs to an order refund');
    return record.request;
  }
}
