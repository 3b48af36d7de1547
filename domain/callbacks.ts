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

  async receive({ receiptId, event }: Callback): Promise<CallbackOutcome> {
    if (!(await this.receipts.claim(receiptId))) return 'duplicate';
    let outcome: CallbackOutcome;
    try {
      outcome = await this.apply(event);
    } catch (error) {
      await this.receipts.release(receiptId);
      throw error;
    }
    await this.receipts.complete(receiptId);
    return outcome;
  }

  private async apply(event: CallbackEvent): Promise<CallbackOutcome> {
    if (event.kind === 'invoice') {
      const { upstreamForeignId, status, error, payment, settlement, depositIds } = event;
      if (!isInvoiceStatus(status)) return 'ignored';
      const updated = await this.invoices.applyStatus({
        upstreamForeignId,
        status,
        source: 'callback',
        error,
        payment,
        settlement,
        depositIds,
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
