import { InProgressError, NotReadyError } from './errors';
import type { InvoiceService } from './invoices';
import type { Callback, CallbackEvent } from './model';
import type { ReceiptStore } from './ports';
import type { RefundService } from './refunds';
import { isInvoiceStatus } from './status';

export type CallbackOutcome = 'applied' | 'duplicate' | 'ignored';

/** Applies the service's verified callbacks (processing/callbacks.ts reads them), each delivery once. */
export class CallbackService {
  constructor(
    private readonly receipts: ReceiptStore,
    private readonly invoices: InvoiceService,
    private readonly refunds: RefundService,
  ) {}

  /**
   * A copy is answered 200 only once its news is in the record. A copy that finds another copy's receipt still
   * pending applies the news itself rather than trust a holder that may have died mid-way: applying is idempotent
   * (statuses only move forward, payments only grow, every write is compare-and-set), and the spec promises no
   * retry that a 503 could count on (issue 29).
   */
  async receive({ receiptId, event }: Callback): Promise<CallbackOutcome> {
    if (!(await this.receipts.claim(receiptId))) {
      if (await this.receipts.isDone(receiptId)) return 'duplicate';
      const outcome = await this.applyOrWait(event);
      await this.receipts.complete(receiptId);
      // Nothing new: the holder had already applied it.
      return outcome === 'applied' ? 'applied' : 'duplicate';
    }
    let outcome: CallbackOutcome;
    try {
      outcome = await this.applyOrWait(event);
    } catch (error) {
      await this.receipts.release(receiptId);
      throw error;
    }
    await this.receipts.complete(receiptId);
    return outcome;
  }

  /**
   * A record too busy to write now (its outbox full, or other writers winning every try) is "not ready", a 503:
   * the 409 `in_progress` a storefront retries would tell the payment service its news was refused.
   */
  private async applyOrWait(event: CallbackEvent): Promise<CallbackOutcome> {
    try {
      return await this.apply(event);
    } catch (error) {
      if (error instanceof InProgressError) throw new NotReadyError('The record');
      throw error;
    }
  }

  private async apply(event: CallbackEvent): Promise<CallbackOutcome> {
    if (event.kind === 'invoice') {
      const { upstreamForeignId, status, error, payment, settlement, depositIds, expiresAt, confirmations } =
        event;
      if (!isInvoiceStatus(status)) return 'ignored';
      const updated = await this.invoices.applyStatus({
        upstreamForeignId,
        status,
        source: 'callback',
        error,
        payment,
        settlement,
        depositIds,
        expiresAt,
        confirmations,
      });
      return updated ? 'applied' : 'ignored';
    }
    if (event.kind === 'withdrawal') {
      const { foreignId, status, error } = event;
      return (await this.refunds.applyStatus(foreignId, status, 'callback', error)) ? 'applied' : 'ignored';
    }
    return 'ignored';
  }
}
