import {
  ProcessingBadContentError,
  ProcessingConnectionError,
  ProcessingFeatureDisabledError,
  ProcessingInvalidStateError,
  ProcessingNotFoundError,
  ProcessingValidationError,
} from '../processing/errors';
import type { CreateInvoiceRequest, InvoiceStatus, TransactionRecord } from '../processing/types';
import { ConflictError, NotFoundError, NotReadyError } from './errors';
import { requestHash } from './hash';
import type { CheckoutRequest, InvoiceRecord, Payment, StatusChange } from './model';
import { paymentOf, paysMore } from './payment';
import type { InvoiceStore, ProcessingApi, VersionedStore } from './ports';
import { claim, markSwept, mayHaveBeenSent, mutate, save, type ClaimTiming } from './records';
import { isFinal, isInvoiceStatus, movesForward } from './status';

/** Attempts after the first use `<foreign_id>~<attempt>` upstream, so `~` is not allowed in our foreign_ids. */
export const ATTEMPT_SEPARATOR = '~';
const MAX_ATTEMPTS = 5;

export function upstreamForeignId(record: Pick<InvoiceRecord, 'foreignId' | 'attempt'>): string {
  return record.attempt === 1 ? record.foreignId : `${record.foreignId}${ATTEMPT_SEPARATOR}${record.attempt}`;
}

export function orderForeignId(upstreamId: string): string {
  return upstreamId.split(ATTEMPT_SEPARATOR)[0];
}

export interface StatusUpdate {
  upstreamForeignId: string;
  status: InvoiceStatus;
  source: StatusChange['source'];
  error?: string;
  payment?: Payment;
}

/** The poll reads the store alone and never calls the service. */
export async function readInvoice(
  invoices: VersionedStore<InvoiceRecord>,
  foreignId: string,
): Promise<InvoiceRecord> {
  const record = await invoices.get(foreignId);
  if (!record) throw new NotFoundError('Invoice');
  return record;
}

export class InvoiceService {
  constructor(
    private readonly invoices: InvoiceStore,
    private readonly processing: ProcessingApi,
    private readonly timing: ClaimTiming,
  ) {}

  /** Creates the order's invoice once; a repeat of the same request answers the same invoice. */
  async checkout(request: CheckoutRequest): Promise<{ record: InvoiceRecord; created: boolean }> {
    const now = this.timing.now();
    const fresh: InvoiceRecord = {
      foreignId: request.foreignId,
      version: 1,
      phase: 'sending',
      requestHash: requestHash(request),
      request,
      attempt: 1,
      claimedAt: now,
      status: null,
      invoice: null,
      payment: null,
      error: null,
      cancelled: false,
      history: [],
      createdAt: now,
      updatedAt: now,
    };
    const claimed = await claim(this.invoices, fresh, this.timing, (existing) => ({
      ...fresh,
      version: existing.version + 1,
      // After an unknown outcome the same upstream id is tried again; a duplicate answer tells us it was created.
      attempt: existing.phase === 'abandoned' ? existing.attempt + 1 : existing.attempt,
      createdAt: existing.createdAt,
    }));
    if (!claimed.owned) return { record: claimed.record, created: false };
    const resumed = mayHaveBeenSent(claimed.previous);
    return { record: await this.createUpstream(claimed.record, resumed), created: true };
  }

  async cancel(foreignId: string): Promise<InvoiceRecord> {
    const record = await readInvoice(this.invoices, foreignId);
    if (record.phase !== 'sent' || isFinal(record.status)) {
      throw new ConflictError('invalid_invoice_state', 'Invoice cannot be cancelled in its current state');
    }
    try {
      await this.processing.cancelInvoice(upstreamForeignId(record));
    } catch (error) {
      const outcomeUnknown = error instanceof ProcessingConnectionError && error.outcomeUnknown;
      if (!(error instanceof ProcessingInvalidStateError || outcomeUnknown)) throw error;
      // An earlier cancel may have gone through with its answer (and callback) lost: ask the service.
      const settled = await this.refresh(record, 'lookup');
      if (settled?.status === 'failed') return this.markCancelled(settled);
      if (outcomeUnknown) throw error;
      throw new ConflictError('invalid_invoice_state', 'The service refused to cancel this invoice');
    }
    const updated = await this.applyStatus({
      upstreamForeignId: upstreamForeignId(record),
      status: 'failed',
      source: 'cancel',
      error: 'Cancelled by the store owner',
    });
    return updated ?? readInvoice(this.invoices, foreignId);
  }

  private async markCancelled(record: InvoiceRecord): Promise<InvoiceRecord> {
    const updated = await mutate(this.invoices, record.foreignId, (current) =>
      current.cancelled ? undefined : { ...current, cancelled: true, updatedAt: this.timing.now() },
    );
    return updated ?? readInvoice(this.invoices, record.foreignId);
  }

  /** Asks the service for the invoice's transaction and records its status and payment where they move forward. */
  async refresh(record: InvoiceRecord, source: StatusChange['source']): Promise<InvoiceRecord | undefined> {
    if (!record.invoice) return undefined;
    let transaction: TransactionRecord;
    try {
      transaction = await this.processing.getTransaction({ id: record.invoice.id });
    } catch (error) {
      if (error instanceof ProcessingNotFoundError) return undefined;
      throw error;
    }
    if (!isInvoiceStatus(transaction.status)) return undefined;
    return (
      (await this.applyStatus({
        upstreamForeignId: upstreamForeignId(record),
        status: transaction.status,
        source,
        error: transaction.error || undefined,
        payment: paymentOf(transaction.currency_sent),
      })) ?? readInvoice(this.invoices, record.foreignId)
    );
  }

  /** Applies a status from the service, only forward and only to the invoice's current upstream attempt. */
  applyStatus(update: StatusUpdate): Promise<InvoiceRecord | undefined> {
    return mutate(this.invoices, orderForeignId(update.upstreamForeignId), (current) => {
      if (upstreamForeignId(current) !== update.upstreamForeignId) return undefined;
      // The service answered our create but we have not recorded it yet: the news must not be lost.
      if (current.phase === 'sending') throw new NotReadyError('The invoice');
      if (current.phase !== 'sent') return undefined;
      const advances = movesForward(current.status, update.status);
      // A partial payment may keep the status; news of a smaller one is older news, whatever order it came in.
      const paid =
        update.payment && !isFinal(current.status) && paysMore(update.payment, current.payment)
          ? update.payment
          : undefined;
      if (!advances && !paid) return undefined;
      const at = this.timing.now();
      return {
        ...current,
        status: advances ? update.status : current.status,
        payment: paid ?? current.payment,
        error: update.error ?? current.error,
        cancelled: current.cancelled || (update.source === 'cancel' && update.status === 'failed'),
        history: advances
          ? [...current.history, { status: update.status, at, source: update.source }]
          : current.history,
        updatedAt: at,
      };
    });
  }

  /** Open records the sweep is due to look at, by `now`, the longest due first. */
  listDue(limit: number, now: number): Promise<InvoiceRecord[]> {
    return this.invoices.listOpen(limit, now);
  }

  async markSwept(foreignId: string): Promise<void> {
    await markSwept(this.invoices, foreignId, this.timing.now());
  }

  /**
   * Gives up on a create whose outcome stayed unknown, cancelling whatever it may have left upstream. The sweep
   * first takes the record under a fresh lease, so it never cancels an invoice a retry has just created.
   */
  async abandon(record: InvoiceRecord): Promise<void> {
    const at = this.timing.now();
    const taken = await save(this.invoices, record, {
      ...record,
      phase: 'sending',
      claimedAt: at,
      updatedAt: at,
    });
    if (!taken.won) return;
    await this.cancelOrphan(upstreamForeignId(taken.record));
    await save(this.invoices, taken.record, {
      ...taken.record,
      phase: 'abandoned',
      updatedAt: this.timing.now(),
    });
  }

  /** `resumed`: an earlier attempt with this upstream id may have been created without our hearing back. */
  private async createUpstream(claimed: InvoiceRecord, resumed: boolean): Promise<InvoiceRecord> {
    let record = claimed;
    let mayBeOurs = resumed;
    for (;;) {
      try {
        const invoice = await this.processing.createInvoice(toServiceRequest(record));
        const at = this.timing.now();
        const { record: saved } = await save(this.invoices, record, {
          ...record,
          phase: 'sent',
          status: invoice.status,
          invoice,
          error: null,
          history: [{ status: invoice.status, at, source: 'create' }],
          updatedAt: at,
        });
        return saved;
      } catch (error) {
        // "foreign_id taken" proves a lost answer only after a send of ours whose outcome was unknown; otherwise
        // the id belongs to someone else's invoice, which must not be cancelled.
        const lostAnswer =
          mayBeOurs && error instanceof ProcessingValidationError && error.isDuplicateForeignId;
        if (!lostAnswer || record.attempt >= MAX_ATTEMPTS) {
          await this.release(record, error);
          throw error;
        }
        // An earlier attempt was created upstream but its answer was lost: retire it and start a new one.
        try {
          await this.cancelOrphan(upstreamForeignId(record));
        } catch (cancelError) {
          await this.release(record, cancelError);
          throw cancelError;
        }
        const at = this.timing.now();
        const next = await save(this.invoices, record, {
          ...record,
          attempt: record.attempt + 1,
          claimedAt: at,
          updatedAt: at,
        });
        if (!next.won) return next.record;
        record = next.record;
        mayBeOurs = false;
      }
    }
  }

  /** Marks how the create ended so a retry can resume at once instead of waiting out the lease. */
  private async release(record: InvoiceRecord, error: unknown): Promise<void> {
    const refused =
      error instanceof ProcessingValidationError ||
      error instanceof ProcessingFeatureDisabledError ||
      error instanceof ProcessingBadContentError;
    try {
      await save(this.invoices, record, {
        ...record,
        phase: refused ? 'rejected' : 'unknown',
        error: refused ? (error as Error).message : null,
        updatedAt: this.timing.now(),
      });
    } catch {
      // The lease runs out instead; the caller still gets the service's error.
    }
  }

  private async cancelOrphan(upstreamId: string): Promise<void> {
    try {
      await this.processing.cancelInvoice(upstreamId);
    } catch (error) {
      // Already final or never created: either way nothing payable is left behind.
      if (!(error instanceof ProcessingInvalidStateError || error instanceof ProcessingNotFoundError))
        throw error;
    }
  }
}

function toServiceRequest(record: InvoiceRecord): CreateInvoiceRequest {
  const { request } = record;
  return {
    foreign_id: upstreamForeignId(record),
    timer: request.timer,
    title: request.title,
    currency: request.currency,
    amount: request.amount,
    url_success: request.urlSuccess,
    url_failed: request.urlFailed,
    email_user: request.email,
    type: request.type,
    end_user_reference: request.endUserReference,
    description: request.description,
    sender_currency: request.senderCurrency,
  };
}
