// The foreign_ids a store's records have at the payment service. The service wants a foreign_id unique per merchant
// account; stores that share the deployment's account each put their id in front of theirs (issue 33).
import { ServiceError } from './errors';
import type { CallbackEvent, RefundRequest, ServiceData, TransactionQuery } from './model';
import type { ProcessingAccounts, ProcessingApi } from './ports';
import { DEFAULT_STORE_ID, STORE_ID, type StoreId } from './stores';

/** Between a store's id and its own foreign_id upstream; neither our foreign_ids nor store ids may hold it. */
export const STORE_SEPARATOR = '!';

/** The foreign_id a store sharing the deployment's account sends: `<storeId>!<foreign_id>`; the default store's as is. */
export function sharedUpstreamId(storeId: StoreId, foreignId: string): string {
  return storeId === DEFAULT_STORE_ID ? foreignId : `${storeId}${STORE_SEPARATOR}${foreignId}`;
}

/**
 * The store a callback to the deployment's account (`/callbacks`) is for, and the event as that store's records
 * know it: a foreign_id without a store's prefix is the default store's. Undefined when the prefix names no
 * possible store.
 */
export function routeSharedCallback(
  event: CallbackEvent,
): { storeId: StoreId; event: CallbackEvent } | undefined {
  if (event.kind === 'other') return { storeId: DEFAULT_STORE_ID, event };
  const upstream = event.kind === 'invoice' ? event.upstreamForeignId : event.foreignId;
  const separator = upstream.indexOf(STORE_SEPARATOR);
  if (separator < 0) return { storeId: DEFAULT_STORE_ID, event };
  const storeId = upstream.slice(0, separator);
  const own = upstream.slice(separator + 1);
  if (!STORE_ID.test(storeId) || storeId === DEFAULT_STORE_ID) return undefined;
  return {
    storeId,
    event: event.kind === 'invoice' ? { ...event, upstreamForeignId: own } : { ...event, foreignId: own },
  };
}

/**
 * A callback to a store's own account (`/callbacks/{store_id}`) names the store's foreign_ids as they are: one
 * with a store's prefix is no record of this store's.
 */
export function isOwnAccountEvent(event: CallbackEvent): boolean {
  if (event.kind === 'other') return true;
  const upstream = event.kind === 'invoice' ? event.upstreamForeignId : event.foreignId;
  return !upstream.includes(STORE_SEPARATOR);
}

/** A store that keeps one account for good, as the default store keeps the deployment's. */
export function oneAccount(processing: ProcessingApi): ProcessingAccounts {
  return { current: async () => 'shared', unpinned: async () => 'shared', of: () => processing };
}

/** Another store's transaction, answered as the payment service answers an id it does not know. */
function notTheStores(): ServiceError {
  return new ServiceError('not_found', "transaction: another store's record", { code: 'not_found' });
}

/**
 * The deployment's account as one store that shares it sees it: every foreign_id sent carries the store's prefix,
 * and a transaction looked up by its id is answered only when it is one of the store's own.
 */
export function sharedAccountOf(processing: ProcessingApi, storeId: StoreId): ProcessingApi {
  const upstream = (foreignId: string) => sharedUpstreamId(storeId, foreignId);
  const prefixed = (request: RefundRequest): RefundRequest => ({
    ...request,
    foreignId: upstream(request.foreignId),
  });
  return {
    createInvoice: (upstreamForeignId, request, sender) =>
      processing.createInvoice(upstream(upstreamForeignId), request, sender),
    cancelInvoice: (upstreamForeignId) => processing.cancelInvoice(upstream(upstreamForeignId)),
    invoiceNews: async (invoiceId) => {
      const news = await processing.invoiceNews(invoiceId);
      const named = news?.upstreamForeignId;
      const prefix = upstream('');
      return (
        news && { ...news, upstreamForeignId: named?.startsWith(prefix) ? named.slice(prefix.length) : null }
      );
    },
    depositNews: (depositIds, upstreamForeignId) =>
      processing.depositNews(depositIds, upstream(upstreamForeignId)),
    createWithdrawal: (request, receiver) => processing.createWithdrawal(prefixed(request), receiver),
    findWithdrawal: (request) => processing.findWithdrawal(prefixed(request)),
    listBalances: () => processing.listBalances(),
    rates: (query) => processing.rates(query),
    pairs: (query) => processing.pairs(query),
    transaction: async (query: TransactionQuery): Promise<ServiceData> => {
      if ('foreign_id' in query) return processing.transaction({ foreign_id: upstream(query.foreign_id) });
      const record = await processing.transaction(query);
      const foreignId = (record as { foreign_id?: unknown }).foreign_id;
      if (typeof foreignId !== 'string' || !foreignId.startsWith(upstream(''))) {
        throw notTheStores();
      }
      return record;
    },
  };
}

/**
 * The deployment's account as the default store sees it: as is, but a transaction looked up by its id whose
 * foreign_id carries a store's prefix is a sharing store's, not found. Looked up by foreign_id, ours never hold the
 * separator, so they cannot name another store's.
 */
export function defaultStoreAccountOf(processing: ProcessingApi): ProcessingApi {
  return {
    createInvoice: (upstreamForeignId, request, sender) =>
      processing.createInvoice(upstreamForeignId, request, sender),
    cancelInvoice: (upstreamForeignId) => processing.cancelInvoice(upstreamForeignId),
    invoiceNews: async (invoiceId) => {
      const news = await processing.invoiceNews(invoiceId);
      return news?.upstreamForeignId?.includes(STORE_SEPARATOR) ? { ...news, upstreamForeignId: null } : news;
    },
    depositNews: (depositIds, upstreamForeignId) => processing.depositNews(depositIds, upstreamForeignId),
    createWithdrawal: (request, receiver) => processing.createWithdrawal(request, receiver),
    findWithdrawal: (request) => processing.findWithdrawal(request),
    listBalances: () => processing.listBalances(),
    rates: (query) => processing.rates(query),
    pairs: (query) => processing.pairs(query),
    transaction: async (query: TransactionQuery): Promise<ServiceData> => {
      const record = await processing.transaction(query);
      const foreignId = (record as { foreign_id?: unknown }).foreign_id;
      if (typeof foreignId === 'string' && foreignId.includes(STORE_SEPARATOR)) {
        throw notTheStores();
      }
      return record;
    },
  };
}
