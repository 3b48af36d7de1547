import { CallbackSignatureError } from '../domain/errors';
import { isOwnAccountEvent } from '../domain/upstream';
import { storeCallbackInput } from '../http/inputs';
import { apiRoute } from '../http/route';
import { storeCallbacksRoute } from '../lib/routes';
import { verifyCallback } from '../processing/callbacks';
import { signatureIn } from '../processing/signing';
import { callbacksFor } from '../runtime/callbacks';
import { storeAccounts } from '../runtime/store-accounts';

/**
 * POST /callbacks/{store_id}: a store's own account, signed by the service with that store's keys and applied to
 * that store's records alone, so that one store's keys never change another's. Answers as POST /callbacks does.
 */
export const handler = apiRoute(
  { route: storeCallbacksRoute, input: storeCallbackInput },
  async ({ storeId, rawBody, headers }) => {
    if (!signatureIn(headers)) throw new CallbackSignatureError();
    const account = await storeAccounts.get(storeId);
    // No keys can sign for an id without its own account: it answers as a wrong signature does, so that the
    // answer never tells which stores exist or have their own account.
    if (account?.processing.account !== 'own') throw new CallbackSignatureError();
    const event = await verifyCallback(rawBody, headers, account.processing.keys);
    if (!event || !isOwnAccountEvent(event)) return { status: 200, body: { outcome: 'ignored' } };
    return { status: 200, body: { outcome: await callbacksFor(storeId, 'own').receive(event) } };
  },
);
