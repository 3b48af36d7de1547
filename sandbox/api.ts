import type { IncomingHttpHeaders } from 'node:http';
import { authenticate, type Keys } from './auth';
import { pairEntry } from './currencies';
import { matchRoute, notFound, reply, ReplyError, type Reply, type Route } from './http';
import type { InvoiceDesk } from './invoices';
import { isPlainObject, parseJson } from './json';
import { toAmount } from './money';
import {
  depositTransaction,
  invoiceTransaction,
  invoiceView,
  withdrawalTransaction,
  withdrawalView,
} from './records';
import type { SandboxState } from './state';
import { checkInvoice, checkPair, checkWithdrawal, type Checked } from './validation';
import type { WithdrawalDesk } from './withdrawals';

export interface ApiServices {
  state: SandboxState;
  invoices: InvoiceDesk;
  withdrawals: WithdrawalDesk;
  keys: Keys;
  baseUrl: () => string;
}

export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
}

interface Context extends ApiServices {
  body: Record<string, unknown>;
  query: URLSearchParams;
}

export const FEATURE_DISABLED_MESSAGE =
  'Invoices are not available: this operation requires feature invoices_enabled for the merchant.';

const ROUTES: readonly Route<Context>[] = [
  { method: 'POST', pattern: /^\/v2\/invoices\/create$/, handle: createInvoice },
  { method: 'POST', pattern: /^\/v2\/invoices\/([^/]+)\/cancel\/$/, handle: cancelInvoice },
  { method: 'POST', pattern: /^\/v2\/crypto\/withdrawal_instant_exchange$/, handle: createWithdrawal },
  { method: 'POST', pattern: /^\/v2\/accounts\/list$/, handle: listBalances },
  { method: 'POST', pattern: /^\/v2\/currencies\/rates$/, handle: (context) => pairs(context, true) },
  { method: 'POST', pattern: /^\/v2\/currencies\/pairs$/, handle: (context) => pairs(context, false) },
  { method: 'GET', pattern: /^\/v2\/transactions\/info$/, handle: lookupTransaction },
];

/**
 * Answers one /v2 request. Authentication comes first because the signature covers the raw bytes, whatever
 * they are; then the route (404), then the content checks (400 bad_content_format), then the operation.
 */
export function handleApi(request: ApiRequest, services: ApiServices): Reply {
  const failure = authenticate(request.headers, request.rawBody, services.keys);
  if (failure) return reply(403, failure);
  const match = matchRoute(ROUTES, request.method, request.path);
  if (!match) return notFound();
  const parsed = jsonBody(request);
  if ('reply' in parsed) return parsed.reply;
  try {
    return match.route.handle({ ...services, body: parsed.body, query: request.query }, match.params);
  } catch (error) {
    if (error instanceof ReplyError) return error.reply;
    throw error;
  }
}

/** The parsed body; a GET may come without one. Numbers stay lossless. */
function jsonBody(request: ApiRequest): { body: Record<string, unknown> } | { reply: Reply } {
  if (request.method === 'GET' && request.rawBody.length === 0) return { body: {} };
  const badContent = (error: string) => ({ reply: reply(400, { error, code: 'bad_content_format' }) });
  const mediaType = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (mediaType !== 'application/json') {
    return badContent('The Content-Type header must be application/json.');
  }
  let body: unknown;
  try {
    body = parseJson(request.rawBody.toString('utf8'));
  } catch {
    return badContent('The request body must be valid JSON.');
  }
  return isPlainObject(body) ? { body } : badContent('The request body must be a JSON object.');
}

function validated<T>(checked: Checked<T>): T {
  if ('errors' in checked) throw new ReplyError(reply(400, { errors: checked.errors }));
  return checked.value;
}

function createInvoice({ state, invoices, body, baseUrl }: Context): Reply {
  if (!state.invoicesEnabled) return reply(400, { message: FEATURE_DISABLED_MESSAGE });
  const input = validated(checkInvoice(body, (foreignId) => state.invoices.has(foreignId)));
  const invoice = invoices.create(input);
  return reply(201, { data: invoiceView(invoice, state.nowSeconds(), baseUrl()) });
}

function cancelInvoice({ invoices }: Context, [foreignId]: string[]): Reply {
  invoices.cancel(foreignId);
  return reply(200, []);
}

function createWithdrawal({ state, withdrawals, body }: Context): Reply {
  const input = validated(checkWithdrawal(body, (foreignId) => state.withdrawals.has(foreignId)));
  return reply(201, { data: withdrawalView(withdrawals.create(input)) });
}

function listBalances({ state }: Context): Reply {
  return reply(200, { data: state.ledger.list() });
}

function pairs({ body }: Context, withDescription: boolean): Reply {
  const { from, to } = validated(checkPair(body));
  return reply(200, { data: [pairEntry(from, to, withDescription)] });
}

/** Query parameters win over the body; `id` wins over `foreign_id`; only withdrawals have a foreign_id lookup. */
function lookupTransaction({ state, body, query }: Context): Reply {
  const fromQuery = query.has('id') || query.has('foreign_id');
  const id = fromQuery ? query.get('id') : body.id;
  const foreignId = fromQuery ? query.get('foreign_id') : body.foreign_id;
  const transactionNotFound = reply(404, { error: 'Transaction not found', code: 'not_found' });
  if (id !== undefined && id !== null && id !== '') {
    const number = toAmount(id);
    if (!number || !number.isInteger() || number.lte(0)) {
      return reply(400, { errors: { id: 'The id field must be an integer.' } });
    }
    const transaction = state.transactions.get(number.toNumber());
    // The spec promises lookups of deposits and withdrawals by id; an invoice's id only when switched on.
    if (!transaction || (transaction.kind === 'invoice' && !state.invoiceLookups)) return transactionNotFound;
    if (transaction.kind === 'invoice') return reply(200, invoiceTransaction(transaction));
    if (transaction.kind === 'deposit') return reply(200, depositTransaction(transaction));
    return reply(200, withdrawalTransaction(transaction));
  }
  if (foreignId === undefined || foreignId === null || foreignId === '') {
    return reply(400, { errors: { id: 'The id field is required when foreign id is not present.' } });
  }
  if (typeof foreignId !== 'string') {
    return reply(400, { errors: { foreign_id: 'The foreign id field must be a string.' } });
  }
  const withdrawal = state.withdrawals.get(foreignId);
  return withdrawal ? reply(200, withdrawalTransaction(withdrawal)) : transactionNotFound;
}
