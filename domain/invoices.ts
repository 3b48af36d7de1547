import {
  ConflictError,
  NotConfiguredError,
  NotFoundError,
  serviceFailure,
  ServiceError,
  surelyNotProcessed,
} from './errors';
import type {
  CheckoutRequest,
  InvoiceNews,
  InvoiceRecord,
  NewsOutcome,
  OrderRefundRequest,
  RefundEntry,
  Sender,
  StatusChange,
} from './model';
import { isSameWithDigest, withDigestOf } from './hash';
import { recordedPayment } from './payment';
import type { CustomerSecrets, InvoiceStore, Owned, ProcessingAccounts, ProcessingApi } from './ports';
import { ClaimedRecords, mayHaveBeenSent, type ClaimTiming } from './records';
import { MAX_REFUNDS_PER_ORDER, refundEnded, reservation, type Unaddressed } from './refund-bound';
import { isInvoiceStatus } from './status';
import { DEFAULT_TRAVEL_RULE_SENDER, type AccountKind, type TravelRule } from './stores';
import { checkSender } from './travel-rule';
import {
  cancelRefusal,
  markCancelAsked,
  markCancelled,
  mayBeOurCancel,
  unmarkCancelAsked,
} from './invoice-cancel';
import { holdsNews, orderForeignId, upstreamForeignId, withNews, type StatusUpdate } from './invoice-news';
import { InvoiceSends, type SentInvoice } from './invoice-sends';
import { invoiceEvents } from './webhooks';

/** An order's refunds, as the refund service reserves and ends them on the order (InvoiceService does). */
export interface RefundReservations {
  /**
   * Reserves the refund (made at `createdAt`) within what the order has left and answers what it sends; a retry
   * finds its reservation.
   */
  reserveRefund(
    ask: OrderRefundRequest,
    createdAt: number,
  ): Promise<{ sends: Unaddressed; account: AccountKind }>;
  /** Marks the refund's entry ended; a failed, declined or cancelled refund no longer counts against the order. */
  endRefund(invoiceForeignId: string, refundForeignId: string, state: EndedRefund): Promise<void>;
}

/** How a refund's entry on its order ends. */
export type EndedRefund = Exclude<RefundEntry['state'], 'pending'>;

/** Concurrent refunds of one order each win the order's compare-and-set in turn: each may lose to all the others. */
const REFUND_WRITE_ATTEMPTS = 2 * MAX_REFUNDS_PER_ORDER;

export interface InvoiceServiceOptions {
  /** Told when the service does not find an invoice we created by its id (the spec does not promise it will). */
  onLookupNotFound?: (foreignId: string) => void;
  /** Told when news names another record or came to another account than the record's: it is never applied. */
  onNewsMismatch?: (foreignId: string, reason: 'foreign_id' | 'account') => void;
  /** Issues each invoice's client secret, which the checkout answers. */
  clientSecrets?: CustomerSecrets;
  /** False when no webhook endpoint is set: then no change makes an event, and records keep no outbox. */
  announce?: boolean;
  /** The store's `travel_rule_sender` now (domain/travel-rule.ts). */
  senderRule?: () => Promise<TravelRule>;
  /**
   * The key a checkout's payer is digested under (domain/hash.ts, `keyedDigest`); a checkout with a payer is refused
   * without one.
   */
  senderDigestKey?: () => Promise<Buffer>;
}

export interface Checkout extends SentInvoice {
  /** False when a repeat of the request found the invoice already made. */
  created: boolean;
}

export class InvoiceService implements RefundReservations {
  private readonly invoices: ClaimedRecords<InvoiceRecord>;
  private readonly sends: InvoiceSends;
  private readonly onLookupNotFound?: (foreignId: string) => void;
  private readonly onNewsMismatch?: (foreignId: string, reason: 'foreign_id' | 'account') => void;
  private readonly senderRule: () => Promise<TravelRule>;
  private readonly senderDigestKey?: () => Promise<Buffer>;

  constructor(
    store: InvoiceStore,
    private readonly accounts: ProcessingAccounts,
    private readonly timing: ClaimTiming,
    options: InvoiceServiceOptions = {},
  ) {
    this.onLookupNotFound = options.onLookupNotFound;
    this.onNewsMismatch = options.onNewsMismatch;
    this.senderRule = options.senderRule ?? (() => Promise.resolve(DEFAULT_TRAVEL_RULE_SENDER));
    this.senderDigestKey = options.senderDigestKey;
    this.invoices = new ClaimedRecords(
      store,
      timing,
      'Invoice',
      {
        attempt: 1,
        invoice: null,
        payment: null,
        cancelled: false,
      },
      options.announce === false ? undefined : invoiceEvents,
    );
    this.sends = new InvoiceSends(this.invoices, accounts, timing, options.clientSecrets);
  }

  /**
   * Creates the order's invoice and its client secret once; a repeat of the same request answers the same invoice.
   * The record keeps only a keyed digest of the payer (`sender`), so a retry resumes with the payer it brings and
   * another payer under the foreign_id is a conflict.
   */
  async checkout(request: CheckoutRequest, sender?: Sender): Promise<Checkout> {
    checkSender(await this.senderRule(), sender);
    const key = sender === undefined ? Buffer.alloc(0) : await this.requireSenderKey();
    const claimed = await this.invoices.claim(
      withDigestOf(request, 'senderDigest', sender, key),
      await this.claimOn(),
      (existing) => ({
        // After an unknown outcome the same upstream id is tried again; a duplicate answer tells us it was created.
        attempt: existing.phase === 'abandoned' ? existing.attempt + 1 : existing.attempt,
      }),
      {},
      (existing) => isSameWithDigest(existing, request, 'senderDigest', sender, key),
    );
    if (!claimed.owned) {
      const record = claimed.record;
      return { record, created: false, clientSecret: await this.sends.clientSecretOf(record) };
    }
    const made = await this.sends.send(claimed.record, mayHaveBeenSent(claimed.previous), sender);
    return { ...made, created: true };
  }

  private async requireSenderKey(): Promise<Buffer> {
    if (!this.senderDigestKey) throw new NotConfiguredError('No key to keep a digest of the payer under');
    return this.senderDigestKey();
  }

  async cancel(foreignId: string): Promise<InvoiceRecord> {
    const record = await this.invoices.read(foreignId);
    const refusal = cancelRefusal(record);
    if (refusal) throw refusal;
    // Ask the service first: our record may not have heard of a payment yet, and a cancel would strand it.
    const seen = (await this.refresh(record, 'lookup')) ?? record;
    if (seen.status === 'failed' && !seen.cancelled && mayBeOurCancel(seen, false)) {
      // An earlier cancel of ours went through with its answer lost.
      return markCancelled(this.invoices, seen, this.timing.now());
    }
    const refusedNow = cancelRefusal(seen);
    if (refusedNow) throw refusedNow;
    const asked = await markCancelAsked(this.invoices, seen, this.timing.now());
    try {
      await this.processingOf(record).cancelInvoice(upstreamForeignId(record));
    } catch (error) {
      if (asked !== undefined && surelyNotProcessed(error))
        await unmarkCancelAsked(this.invoices, foreignId, asked);
      const outcomeUnknown = error instanceof ServiceError && error.outcomeUnknown;
      if (!(serviceFailure(error) === 'invalid_state' || outcomeUnknown)) throw error;
      // An earlier cancel may have gone through with its answer (and callback) lost: ask the service. An invoice it
      // failed for another reason (expired, underpaid) keeps that outcome, and the cancel is refused.
      const settled = await this.refresh(record, 'lookup');
      if (settled?.status === 'failed' && mayBeOurCancel(settled, outcomeUnknown)) {
        return markCancelled(this.invoices, settled, this.timing.now());
      }
      if (outcomeUnknown && settled?.status !== 'failed') throw error;
      throw (
        (settled && cancelRefusal(settled)) ??
        new ConflictError('invalid_invoice_state', 'The service refused to cancel this invoice')
      );
    }
    const updated = await this.applyStatus({
      upstreamForeignId: upstreamForeignId(record),
      status: 'failed',
      source: 'cancel',
      error: 'Cancelled by the store owner',
    });
    return updated ?? this.invoices.read(foreignId);
  }

  /** The account a new record is claimed on, and the one a record that names none was made on. */
  private async claimOn() {
    const [account, unpinned] = await Promise.all([this.accounts.current(), this.accounts.unpinned()]);
    return { account, unpinned };
  }

  /** The account the record was claimed on: every call for it goes there. */
  private processingOf(record: InvoiceRecord): ProcessingApi {
    return this.accounts.of(record.account);
  }

  /**
   * Records the invoice's looked-up status and payment where they move forward; one the service does not find is
   * counted, never read as unpaid, and its deposits are asked instead, as the spec promises only those lookups.
   * `listed`: the sweep's record is used as listed (see `mutate`); a cancel reads afresh, as a payment may have
   * landed.
   */
  async refresh(
    record: InvoiceRecord,
    source: StatusChange['source'],
    { listed = false } = {},
  ): Promise<InvoiceRecord | undefined> {
    if (!record.invoice) return undefined;
    let news = await this.processingOf(record).invoiceNews(record.invoice.id);
    if (news && news.upstreamForeignId !== upstreamForeignId(record)) {
      // Another invoice under the same id (another account's, say): its news is not this order's.
      this.onNewsMismatch?.(record.foreignId, 'foreign_id');
      return undefined;
    }
    if (!news) {
      this.onLookupNotFound?.(record.foreignId);
      news = await this.newsFromDeposits(record);
    }
    if (!news || !isInvoiceStatus(news.status)) return undefined;
    const applied = await this.applyNews(
      {
        upstreamForeignId: upstreamForeignId(record),
        status: news.status,
        source,
        error: news.error,
        payment: news.payment,
        settlement: news.settlement,
        depositIds: news.depositIds,
        expiresAt: news.expiresAt,
        confirmations: news.confirmations,
        deposits: news.deposits,
      },
      listed ? record : undefined,
    );
    return applied.record;
  }

  /**
   * What the deposits named in the invoice's callbacks tell: the invoice's record if the service leads there, else
   * the money seen, never a status of theirs. Money that covers what is due reads as a payment being confirmed.
   */
  private async newsFromDeposits(record: InvoiceRecord): Promise<InvoiceNews | undefined> {
    if (!record.depositIds?.length || record.status === null) return undefined;
    const found = await this.processingOf(record).depositNews(record.depositIds, upstreamForeignId(record));
    if (found.invoice) return found.invoice;
    if (!found.payment) return undefined;
    const coverage = recordedPayment(found.payment, record, false).coverage;
    const covered = coverage === 'exact' || coverage === 'over';
    return {
      status: covered ? 'processing' : record.status,
      payment: found.payment,
      deposits: found.deposits,
    };
  }

  /** Applies a status from the service, only forward and only to the invoice's current upstream attempt. */
  async applyStatus(update: StatusUpdate): Promise<InvoiceRecord | undefined> {
    const applied = await this.applyNews(update);
    return applied.outcome === 'applied' ? applied.record : undefined;
  }

  /**
   * Applies news from the service (see `applyStatus`) and answers the record with `applied`, `duplicate` or
   * `ignored`. Nothing is written when nothing moves, so applying news twice is applying it once.
   */
  async applyNews(
    update: StatusUpdate,
    seen?: InvoiceRecord,
  ): Promise<{ outcome: NewsOutcome; record: InvoiceRecord | undefined }> {
    let latest: InvoiceRecord | undefined;
    let held = false;
    let elsewhere = false;
    const unpinned = update.via && (await this.accounts.unpinned());
    const written = await this.invoices.mutate(
      orderForeignId(update.upstreamForeignId),
      (current) => {
        latest = current;
        elsewhere = update.via !== undefined && (current.account ?? unpinned) !== update.via;
        if (elsewhere) return undefined;
        const next = withNews(current, update, this.timing.now());
        held = next === undefined && holdsNews(current, update);
        return next;
      },
      { seen },
    );
    if (written) return { outcome: 'applied', record: written };
    if (elsewhere) this.onNewsMismatch?.(orderForeignId(update.upstreamForeignId), 'account');
    return { outcome: held ? 'duplicate' : 'ignored', record: latest };
  }

  /** Open records of every store the sweep is due to look at, by `now`, the longest due first. */
  listDue(limit: number, now: number): Promise<Array<Owned<InvoiceRecord>>> {
    return this.invoices.listDue(limit, now);
  }

  /** The refund's withdrawal goes from the account the order's money came to. */
  async reserveRefund(ask: OrderRefundRequest, createdAt: number) {
    let sends: Unaddressed | undefined;
    let account: AccountKind | undefined;
    const unpinned = await this.accounts.unpinned();
    const change = (current: InvoiceRecord) => {
      const reserved = reservation(current, ask, createdAt, this.timing.now());
      sends = reserved.sends;
      account = current.account ?? unpinned;
      return reserved.next;
    };
    await this.invoices.mutate(ask.invoiceForeignId, change, { attempts: REFUND_WRITE_ATTEMPTS });
    if (!sends || !account) throw new NotFoundError('Invoice');
    return { sends, account };
  }

  async endRefund(invoiceForeignId: string, refundForeignId: string, state: EndedRefund) {
    const change = (current: InvoiceRecord) =>
      refundEnded(current, refundForeignId, state, this.timing.now());
    await this.invoices.mutate(invoiceForeignId, change, { attempts: REFUND_WRITE_ATTEMPTS });
  }

  /** Marks the record looked at; `seen` as the sweep last read or wrote it (see `ClaimedRecords.markSwept`). */
  markSwept(foreignId: string, seen?: InvoiceRecord): Promise<void> {
    return this.invoices.markSwept(foreignId, seen);
  }

  /**
   * Gives up on a create whose outcome stayed unknown, cancelling whatever it may have left upstream
   * (`InvoiceSends.abandon`).
   */
  abandon(record: InvoiceRecord): Promise<void> {
    return this.sends.abandon(record);
  }
}
