import { InProgressError, NotReadyError } from './errors';
import type { InvoiceService } from './invoices';
import type { CallbackEvent, NewsOutcome } from './model';
import type { RefundService } from './refunds';
import { isInvoiceStatus } from './status';
import type { AccountKind } from './stores';

/**
 * Applies the service's verified callbacks (processing/callbacks.ts reads them). Every delivery is applied: a copy
 * of one already applied finds its news in the record, writes nothing and is a `duplicate`. Applying is idempotent
 * (statuses only move forward, payments only grow, every write is compare-and-set), so copies at once apply the
 * news once, and a delivery cut off mid-way, never answered 2xx, is applied by the service's retry (issue 30).
 */
export class CallbackService {
  constructor(
    private readonly invoices: InvoiceService,
    private readonly refunds: RefundService,
    /** The account whose callback endpoint this is: its news is applied only to records claimed on it. */
    private readonly via: AccountKind,
  ) {}

  /**
   * A record too busy to write now (its outbox full, or other writers winning every try) is "not ready", a 503:
   * the 409 `in_progress` a storefront retries would tell the payment service its news was refused.
   */
  async receive(event: CallbackEvent): Promise<NewsOutcome> {
    try {
      return await this.apply(event);
    } catch (error) {
      if (error instanceof InProgressError) throw new NotReadyError('The record');
      throw error;
    }
  }

  private async apply(event: CallbackEvent): Promise<NewsOutcome> {
    if (event.kind === 'invoice') {
      const { upstreamForeignId, status, error, payment, settlement, depositIds, expiresAt, confirmations } =
        event;
      const { deposits } = event;
      if (!isInvoiceStatus(status)) return 'ignored';
      const { outcome } = await this.invoices.applyNews({
        upstreamForeignId,
        status,
        source: 'callback',
        error,
        payment,
        settlement,
        depositIds,
        expiresAt,
        confirmations,
        deposits,
        via: this.via,
      });
      return outcome;
    }
    if (event.kind === 'withdrawal') {
      const { foreignId, status, error } = event;
      return (await this.refunds.applyCallback(foreignId, status, error, this.via)).outcome;
    }
    return 'ignored';
  }
}
