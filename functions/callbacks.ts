import { CallbackService } from '../domain/callbacks';
import { apiRoute } from '../http/route';
import { callbacksRoute } from '../lib/routes';
import { verifyCallback } from '../processing/callbacks';
import { invoices } from '../runtime/invoices';
import { processingKeys } from '../runtime/processing-keys';
import { refunds } from '../runtime/refunds';
import { receiptStore } from '../runtime/stores';

const callbacks = new CallbackService(receiptStore, invoices, refunds);

/** POST /callbacks: signed by the service over the raw body; 200 unless a retry could succeed. */
export const handler = apiRoute(
  { route: callbacksRoute, input: ({ rawBody, headers }) => ({ rawBody, headers }) },
  async ({ rawBody, headers }) => {
    const callback = await verifyCallback(rawBody, headers, processingKeys);
    return { status: 200, body: { outcome: callback ? await callbacks.receive(callback) : 'ignored' } };
  },
);
