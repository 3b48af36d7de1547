import type {
  CheckoutRequest,
  OrderRefundRequest,
  PairQuery,
  Receiver,
  Sender,
  RefundRequest,
  TransactionQuery,
} from '../domain/model';
import { InvalidRequestError } from './errors';
import { apiBaseOf } from './store-inputs';
import type { ApiRequest } from './route';
import type { CreatedQuery } from '../domain/ports';
import { STORE_ID } from '../domain/stores';
import { EVENT_ID } from '../domain/webhooks';
import {
  balancesQuery,
  checkoutBody,
  checkoutOptionsQuery,
  claimBody,
  deliveryListQuery,
  LIST_LIMIT,
  noBody,
  noQuery,
  orderRefundBody,
  pairQuery,
  refundBody,
  transactionQuery,
} from './schemas/inputs';
import { FOREIGN_ID, FOREIGN_ID_MESSAGE, readFields } from './validate';

/** `foreign_id` → `foreignId`, as the domain names a request's fields. */
type CamelCase<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : S;
type CamelCased<T> = { [K in keyof T as K extends string ? CamelCase<K> : K]: T[K] };

/** Field names are the schemas' own, a few dozen in all: each is converted once. */
const camelNames = new Map<string, string>();

function camelCased<T extends object>(fields: T): CamelCased<T> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(fields)) {
    let camel = camelNames.get(name);
    if (camel === undefined) {
      camel = name.replace(/_(.)/g, (_, letter: string) => letter.toUpperCase());
      camelNames.set(name, camel);
    }
    out[camel] = value;
  }
  return out as CamelCased<T>;
}

/** A checkout: the order in our names, and the travel rule's payer, if given. */
export function checkoutInput({ body }: ApiRequest): CheckoutRequest & { sender?: Sender } {
  return camelCased(readFields(checkoutBody, body));
}

/** A payout: what the service's withdrawal takes, in our names, and the travel rule's receiver, if given. */
export function refundInput({ body }: ApiRequest): RefundRequest & { receiver?: Receiver } {
  const { debited_currency, debited_amount, currency, ...rest } = readFields(refundBody, body);
  return {
    ...camelCased(rest),
    senderCurrency: debited_currency,
    senderAmount: debited_amount,
    receivedCurrency: currency,
  };
}

/** A refund of the order `{foreign_id}` in the path; the body's `foreign_id` is the refund's own. */
export function orderRefundInput(request: ApiRequest): {
  refund: OrderRefundRequest & { receiver?: Receiver };
  apiBase: string;
} {
  const invoiceForeignId = foreignIdInput(request);
  const refund = { ...camelCased(readFields(orderRefundBody, request.body)), invoiceForeignId };
  return { refund, apiBase: apiBaseOf(request) };
}

/** `{foreign_id}` of a refund, and where this API is served (a claim link starts with it). */
export function refundReadInput(request: ApiRequest): { foreignId: string; apiBase: string } {
  return { foreignId: foreignIdInput(request), apiBase: apiBaseOf(request) };
}

/**
 * `{foreign_id}` in the path. The same pattern as the schemas' foreign_id, checked without them: the poll's bundle
 * carries no validation library.
 */
export function foreignIdInput({ path }: ApiRequest): string {
  const foreignId = path.foreign_id;
  if (!foreignId || !FOREIGN_ID.test(foreignId))
    throw new InvalidRequestError({ foreign_id: FOREIGN_ID_MESSAGE });
  return foreignId;
}

/** A customer's claim link: the refund in the path, its token in a header (the page reads it from the URL's fragment). */
export function claimInput(request: ApiRequest): { foreignId: string; token?: string } {
  return { foreignId: foreignIdInput(request), token: request.headers['x-claim-token'] };
}

/** A customer's address for a claim link, with the receiver where the store's travel rule asks for it. */
export function claimAddressInput(request: ApiRequest): {
  foreignId: string;
  token?: string;
  answer: { address: string; receiver?: Receiver };
} {
  return { ...claimInput(request), answer: readFields(claimBody, request.body) };
}

/** The customer's read of one invoice: the poll's input and the client secret, from its header. */
export function publicInvoiceInput(request: ApiRequest): {
  foreignId: string;
  ifNoneMatch?: string;
  clientSecret?: string;
} {
  return { ...invoicePollInput(request), clientSecret: request.headers['x-client-secret'] };
}

/** POST /callbacks/{store_id}: the store named in the path, and the raw body and headers its signature covers. */
export function storeCallbackInput({ path, rawBody, headers }: ApiRequest) {
  const storeId = path.store_id;
  if (!storeId || !STORE_ID.test(storeId))
    throw new InvalidRequestError({
      store_id: 'must be a store id: lowercase letters, digits and -, at most 32',
    });
  return { storeId, rawBody, headers };
}

/** `{event_id}` in the path: a webhook event's id. */
export function eventIdInput({ path }: ApiRequest): string {
  const eventId = path.event_id;
  if (!eventId || !EVENT_ID.test(eventId))
    throw new InvalidRequestError({ event_id: 'must be an event id: evt_ and 24 base64url characters' });
  return eventId;
}

/** GET /webhooks/deliveries: `limit`, `cursor`; newest first. */
export function deliveryListInput({ query }: ApiRequest): CreatedQuery {
  const { limit = LIST_LIMIT, cursor } = readFields(deliveryListQuery, query, 'query');
  return {
    limit,
    after:
      cursor?.foreignId === undefined ? undefined : { createdAt: cursor.at, foreignId: cursor.foreignId },
  };
}

/** The poll: `{foreign_id}` and the ETag the caller already has, if any. */
export function invoicePollInput(request: ApiRequest): { foreignId: string; ifNoneMatch?: string } {
  return { foreignId: foreignIdInput(request), ifNoneMatch: request.headers['if-none-match'] };
}

export function pairInput({ query }: ApiRequest): PairQuery {
  const { from, to } = readFields(pairQuery, query, 'query');
  return { currency_from: from, currency_to: to };
}

/** `GET /checkout/options`: the order's amount (8 fractional digits) and currency, as checkout reads them. */
export function checkoutOptionsInput({ query }: ApiRequest): { amount: string; currency: string } {
  return readFields(checkoutOptionsQuery, query, 'query');
}

export function transactionInput({ query }: ApiRequest): TransactionQuery {
  const { id, foreign_id } = readFields(transactionQuery, query, 'query');
  if ((id === undefined) === (foreign_id === undefined)) {
    throw new InvalidRequestError({
      id: 'give exactly one of id or foreign_id',
      foreign_id: 'give exactly one of id or foreign_id',
    });
  }
  return id !== undefined ? { id } : { foreign_id: foreign_id as string };
}

export function balancesInput({ query }: ApiRequest): { live: boolean } {
  return readFields(balancesQuery, query, 'query');
}

/** `GET /health` takes no parameters; any given is refused, so that a typo never passes silently. */
export function healthInput({ query }: ApiRequest): void {
  readFields(noQuery, query, 'query');
}

/** The re-send of every failed webhook takes no parameters, and a body, if any, with no fields. */
export function resendFailedInput({ query, body }: ApiRequest): void {
  readFields(noQuery, query, 'query');
  if (body !== undefined) readFields(noBody, body);
}

/** A static document ignores any query (a cache buster, say), and so its bundle needs no validation library. */
export function noInput(): void {}
