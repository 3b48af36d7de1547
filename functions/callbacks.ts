import { CallbackService } from '../domain/callbacks';
import { InvoiceService } from '../domain/invoices';
import { RefundService } from '../domain/refunds';
import { apiRoute } from '../http/route';
import { callbacksRoute } from '../lib/routes';
import { verifyCallback } from '../processing/callbacks';
import { processing } from '../runtime/processing';
import { processingKeys } from '../runtime/processing-keys';
import { invoiceStore, receiptStore, refundStore } from '../runtime/stores';
import { claimTiming } from '../runtime/timing';
import { announceEvents } from '../runtime/webhook-events';

const invoices = new InvoiceService(invoiceStore, processing, claimTiming, { announce: announceEvents });
const callbacks = new CallbackService(
  receiptStore,
  invoices,
  new RefundService(refundStore, processing, claimTiming, invoices, { announce: announceEvents }),
);

/** POST /callbacks: signed by the service over the raw body; 200 unless a retry could succeed. */
export const handler = apiRoute(
  { route: callbacksRoute, input: ({ rawBody, headers }) => ({ rawBody, headers }) },
  async ({ rawBody, headers }) => {
    const callback = await verifyCallback(rawBody, headers, processingKeys);
    return { status: 200, body: { outcome: callback ? await callbacks.receive(callback) : 'ignored' } };
  },
);
