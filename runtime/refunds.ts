import { RefundService } from '../domain/refunds';
import { invoices } from './invoices';
import { processing } from './processing';
import { refundStore } from './stores';
import { claimTiming } from './timing';
import { announceEvents } from './webhook-events';

/** The refunds over the deployed stores, each order's refunds reserved on its invoice record. */
export const refunds = /* @__PURE__ */ new RefundService(refundStore, processing, claimTiming, invoices, {
  announce: announceEvents,
});
