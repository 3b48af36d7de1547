import { routeSharedCallback } from '../domain/upstream';
import { apiRoute } from '../http/route';
import { callbacksRoute } from '../lib/routes';
import { verifyCallback } from '../processing/callbacks';
import { callbacksFor } from '../runtime/callbacks';
import { processingKeys } from '../runtime/processing-keys';
import { storeExists } from '../runtime/store-account';

/**
 * POST /callbacks: the deployment's account, signed by the service over the raw body; 200 unless a retry could
 * succeed. The foreign_id's store prefix names the store it is for (none: the default store), and only its records
 * claimed on this account take the news, even after the store moved to its own.
 */
export const handler = apiRoute(
  { route: callbacksRoute, input: ({ rawBody, headers }) => ({ rawBody, headers }) },
  async ({ rawBody, headers }) => {
    const event = await verifyCallback(rawBody, headers, processingKeys);
    const routed = event && routeSharedCallback(event);
    if (!routed || !(await storeExists(routed.storeId))) {
      return { status: 200, body: { outcome: 'ignored' } };
    }
    const outcome = await callbacksFor(routed.storeId, 'shared').receive(routed.event);
    return { status: 200, body: { outcome } };
  },
);
