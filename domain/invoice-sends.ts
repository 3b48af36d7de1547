// Sending an invoice's create once: a lost answer is proven by "foreign_id taken", its orphan cancelled and a new
// attempt made; a create whose outcome stayed unknown is abandoned. domain/invoices.ts drives it.
import { customerSecretHash, customerSecretMatches } from './customer-secret';
import { serviceFailure, type ServiceError, surelyNotProcessed } from './errors';
import type { InvoiceRecord, Sender } from './model';
import type { CustomerSecrets, ProcessingAccounts } from './ports';
import type { ClaimedRecords, ClaimTiming } from './records';
import { upstreamForeignId } from './invoice-news';

const MAX_ATTEMPTS = 5;

/** A created invoice, and the client secret the checkout answers with it. */
export interface SentInvoice {
  record: InvoiceRecord;
  clientSecret: string | null;
}

/** An invoice's create, sent once per order; its client secret is issued before the send and answered with it. */
export class InvoiceSends {
  constructor(
    private readonly invoices: ClaimedRecords<InvoiceRecord>,
    private readonly accounts: ProcessingAccounts,
    private readonly timing: ClaimTiming,
    private readonly clientSecrets?: CustomerSecrets,
  ) {}

  /**
   * `resumed`: an earlier attempt with this upstream id may have been created without our hearing back. `sender`:
   * the payer this call was given, sent with each attempt and never written.
   */
  async send(claimed: InvoiceRecord, resumed: boolean, sender?: Sender): Promise<SentInvoice> {
    let record = claimed;
    let mayBeOurs = resumed;
    // Before the send: a secret that could not be had after it would leave a created invoice unrecorded.
    let secret: string | undefined;
    try {
      secret = await this.clientSecrets?.secretFor(claimed);
    } catch (error) {
      await (mayBeOurs ? this.invoices.release(claimed, undefined) : this.invoices.releaseUnsent(claimed));
      throw error;
    }
    const own = secret === undefined ? {} : { clientSecretHash: customerSecretHash(secret) };
    for (;;) {
      try {
        const created = await this.accounts
          .of(record.account)
          .createInvoice(upstreamForeignId(record), record.request, sender);
        const answered = this.invoices.answered(record, created, 'create', {
          invoice: created.details,
          ...own,
        });
        const saved = await this.invoices.save(record, answered);
        // The secret whose hash this write stored; a record someone else wrote is checked against its own.
        return saved.won
          ? { record: saved.record, clientSecret: secret ?? null }
          : { record: saved.record, clientSecret: await this.clientSecretOf(saved.record) };
      } catch (error) {
        // "foreign_id taken" proves a lost answer only after a send of ours whose outcome was unknown; otherwise
        // the id belongs to someone else's invoice, which must not be cancelled.
        const lostAnswer = mayBeOurs && serviceFailure(error) === 'duplicate_foreign_id';
        if (!lostAnswer || record.attempt >= MAX_ATTEMPTS) {
          // Not unknown when surely unsent: a retry or the sweep would take "taken" for a send of ours that made
          // the invoice, and cancel one we did not make.
          const sentNothing = !mayBeOurs && surelyNotProcessed(error);
          await (sentNothing
            ? this.invoices.releaseUnsent(record)
            : this.invoices.release(record, refusal(error)));
          throw error;
        }
        // An earlier attempt was created upstream but its answer was lost: retire it and start a new one.
        try {
          await this.cancelOrphan(record);
        } catch (cancelError) {
          await this.invoices.release(record, refusal(cancelError));
          throw cancelError;
        }
        const at = this.timing.now();
        const next = await this.invoices.save(record, {
          ...record,
          attempt: record.attempt + 1,
          claimedAt: at,
          updatedAt: at,
        });
        if (!next.won) return { record: next.record, clientSecret: await this.clientSecretOf(next.record) };
        record = next.record;
        mayBeOurs = false;
      }
    }
  }

  /**
   * Gives up on a create whose outcome stayed unknown, cancelling whatever it may have left upstream. The sweep
   * first takes the record under a fresh lease, so it never cancels an invoice a retry has just created.
   */
  async abandon(record: InvoiceRecord): Promise<void> {
    const taken = await this.invoices.retake(record);
    if (!taken.won) return;
    await this.cancelOrphan(taken.record);
    await this.invoices.save(taken.record, {
      ...taken.record,
      phase: 'abandoned',
      updatedAt: this.timing.now(),
    });
  }

  /**
   * The invoice's client secret, issued again for a replayed checkout; null when the stored hash is not of the
   * secret issued now (an invoice from before client secrets, or before the key they derive from changed).
   */
  async clientSecretOf(record: InvoiceRecord): Promise<string | null> {
    const secret = await this.clientSecrets?.secretFor(record);
    return customerSecretMatches(secret, record.clientSecretHash) ? (secret as string) : null;
  }

  private async cancelOrphan(record: InvoiceRecord): Promise<void> {
    try {
      await this.accounts.of(record.account).cancelInvoice(upstreamForeignId(record));
    } catch (error) {
      // Already final or never created: either way nothing payable is left behind.
      const failure = serviceFailure(error);
      if (failure !== 'invalid_state' && failure !== 'not_found') throw error;
    }
  }
}

/** The service's reason when it refused the create for good; a retry may then use the foreign_id again. */
function refusal(error: unknown): string | undefined {
  const failure = serviceFailure(error);
  const refused =
    failure === 'refused' ||
    failure === 'duplicate_foreign_id' ||
    failure === 'feature_disabled' ||
    failure === 'unreadable_request';
  return refused ? (error as ServiceError).reason : undefined;
}
