import { InvoiceService } from '../domain/invoices';
import { RefundService } from '../domain/refunds';
import { processing } from './processing';
import { invoiceStore, refundStore } from './stores';
import { claimTiming } from './timing';
import { announceEvents } from './webhook-events';

/** The refunds over the deployed stores, each order's refunds reserved on its invoice record. */
export const refunds = /* @__PURE__ */ new RefundService(
  refundStore,
  processing,
  claimTiming,
  /* @__PURE__ */ new InvoiceService(invoiceStore, processing, claimTiming, { announce: announceEvents }),
  { announce: announceEvents },
);
