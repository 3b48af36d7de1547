import type { CheckoutRequest, PairQuery, RefundRequest, TransactionQuery } from '../domain/model';
import { InvalidRequestError } from './errors';
import type { ApiRequest } from './route';
import {
  balancesQuery,
  checkoutBody,
  noQuery,
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

export function checkoutInput({ body }: ApiRequest): CheckoutRequest {
  return camelCased(readFields(checkoutBody, body));
}

export function refundInput({ body }: ApiRequest): RefundRequest {
  return camelCased(readFields(refundBody, body));
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

/** The poll: `{foreign_id}` and the ETag the caller already has, if any. */
export function invoicePollInput(request: ApiRequest): { foreignId: string; ifNoneMatch?: string } {
  return { foreignId: foreignIdInput(request), ifNoneMatch: request.headers['if-none-match'] };
}

export function pairInput({ query }: ApiRequest): PairQuery {
  const { from, to } = readFields(pairQuery, query, 'query');
  return { currency_from: from, currency_to: to };
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

/** A static document ignores any query (a cache buster, say), and so its bundle needs no validation library. */
export function noInput(): void {}
