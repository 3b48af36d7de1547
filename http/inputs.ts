import type { CheckoutRequest, PairQuery, RefundRequest, TransactionQuery } from '../domain/model';
import { InvalidRequestError } from './errors';
import type { ApiRequest } from './route';
import { CURRENCY, CURRENCY_MESSAGE, FOREIGN_ID, FOREIGN_ID_MESSAGE, FieldReader } from './validate';

const foreignIdRule = { required: true, pattern: FOREIGN_ID, patternMessage: FOREIGN_ID_MESSAGE };

export function checkoutInput({ body }: ApiRequest): CheckoutRequest {
  const fields = new FieldReader(body);
  const input = {
    foreignId: fields.string('foreign_id', foreignIdRule),
    amount: fields.amount('amount'),
    currency: fields.currency('currency'),
    title: fields.string('title', { required: true, min: 1, max: 50 }),
    email: fields.email('email'),
    urlSuccess: fields.url('url_success'),
    urlFailed: fields.url('url_failed'),
    timer: fields.boolean('timer', true),
    senderCurrency: fields.currency('sender_currency', false),
    description: fields.string('description', { max: 1000, lineBreaks: true }),
    endUserReference: fields.string('end_user_reference', { max: 100 }),
    type: fields.oneOf('type', ['fill_or_kill', 'good_until_expired'] as const),
  };
  fields.done();
  return input as CheckoutRequest;
}

export function refundInput({ body }: ApiRequest): RefundRequest {
  const fields = new FieldReader(body);
  const input = {
    foreignId: fields.string('foreign_id', foreignIdRule),
    senderCurrency: fields.currency('sender_currency'),
    receivedCurrency: fields.currency('received_currency'),
    senderAmount: fields.amount('sender_amount'),
    address: fields.string('address', {
      required: true,
      max: 256,
      // Every address format the service pays to is ASCII; anything else is invisible, reorders what the admin
      // reads (bidi controls), or only looks like the address meant.
      pattern: /^[\x21-\x7e]+$/,
      patternMessage: 'must be printable ASCII with no spaces',
    }),
    endUserReference: fields.string('end_user_reference', { max: 100 }),
  };
  fields.done();
  return input as RefundRequest;
}

/** `{foreign_id}` in the path. */
export function foreignIdInput({ path }: ApiRequest): string {
  const foreignId = path.foreign_id;
  if (!foreignId || !FOREIGN_ID.test(foreignId))
    throw new InvalidRequestError({ foreign_id: FOREIGN_ID_MESSAGE });
  return foreignId;
}

export function pairInput({ query }: ApiRequest): PairQuery {
  const fields = new FieldReader(query, 'query');
  const from = fields.string('from', { required: true, pattern: CURRENCY, patternMessage: CURRENCY_MESSAGE });
  const to = fields.string('to', { required: true, pattern: CURRENCY, patternMessage: CURRENCY_MESSAGE });
  fields.done();
  return { currency_from: from as string, currency_to: to as string };
}

export function transactionInput({ query }: ApiRequest): TransactionQuery {
  const fields = new FieldReader(query, 'query');
  const id = fields.integer('id');
  const foreignId = fields.string('foreign_id', { pattern: FOREIGN_ID, patternMessage: FOREIGN_ID_MESSAGE });
  if (id === 0) fields.reject('id', 'must be a positive whole number');
  fields.done();
  if ((id === undefined) === (foreignId === undefined)) {
    throw new InvalidRequestError({
      id: 'give exactly one of id or foreign_id',
      foreign_id: 'give exactly one of id or foreign_id',
    });
  }
  return id !== undefined ? { id } : { foreign_id: foreignId as string };
}

export function balancesInput({ query }: ApiRequest): { live: boolean } {
  const fields = new FieldReader(query, 'query');
  const live = fields.boolean('live', false) as boolean;
  fields.done();
  return { live };
}

/** `GET /health` takes no parameters; any given is refused, so that a typo never passes silently. */
export function healthInput({ query }: ApiRequest): void {
  new FieldReader(query, 'query').done();
}
