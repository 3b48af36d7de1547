import { LosslessNumber } from 'lossless-json';
import { callbackRetrySchedule, type CallbackSender } from './callbacks';
import { findCurrency } from './currencies';
import type { FaultTable } from './faults';
import { badRequest, matchRoute, notFound, reply, ReplyError, type Reply, type Route } from './http';
import type { InvoiceDesk, PaymentKind, PaymentSpec } from './invoices';
import { isPlainObject, parseJson } from './json';
import { fixed8, hasAtMost8Places, toAmount, type Amount } from './money';
import { invoiceControlView, withdrawalTransaction, withdrawalView } from './records';
import type { InvoiceRecord, SandboxState } from './state';
import type { Traffic } from './traffic';
import type { WithdrawalDesk } from './withdrawals';

export const CONTROL_PREFIX = '/_sandbox';

export interface ControlServices {
  state: SandboxState;
  invoices: InvoiceDesk;
  withdrawals: WithdrawalDesk;
  faults: FaultTable;
  traffic: Traffic;
  callbacks: CallbackSender;
  baseUrl: () => string;
}

interface Context extends ControlServices {
  body: Record<string, unknown>;
  query: URLSearchParams;
}

const PAYMENT_KINDS: readonly PaymentKind[] = ['full', 'over', 'under', 'partial'];

const ROUTES: readonly Route<Context>[] = [
  { method: 'POST', pattern: /^\/_sandbox\/reset$/, handle: reset },
  { method: 'GET', pattern: /^\/_sandbox\/requests$/, handle: listRequests },
  { method: 'GET', pattern: /^\/_sandbox\/stats$/, handle: ({ traffic }) => reply(200, traffic.stats()) },
  { method: 'POST', pattern: /^\/_sandbox\/faults$/, handle: addFault },
  { method: 'DELETE', pattern: /^\/_sandbox\/faults$/, handle: clearFaults },
  { method: 'POST', pattern: /^\/_sandbox\/features$/, handle: setFeatures },
  { method: 'POST', pattern: /^\/_sandbox\/clock$/, handle: advanceClock },
  { method: 'GET', pattern: /^\/_sandbox\/transactions$/, handle: listTransactions },
  { method: 'GET', pattern: /^\/_sandbox\/invoices\/([^/]+)$/, handle: showInvoice },
  { method: 'POST', pattern: /^\/_sandbox\/invoices\/([^/]+)\/pay$/, handle: payInvoice },
  { method: 'POST', pattern: /^\/_sandbox\/invoices\/([^/]+)\/confirmations$/, handle: confirmInvoice },
  { method: 'POST', pattern: /^\/_sandbox\/invoices\/([^/]+)\/settle$/, handle: settleInvoice },
  { method: 'POST', pattern: /^\/_sandbox\/invoices\/([^/]+)\/expire$/, handle: expireInvoice },
  { method: 'POST', pattern: /^\/_sandbox\/invoices\/([^/]+)\/fail$/, handle: failInvoice },
  { method: 'POST', pattern: /^\/_sandbox\/withdrawals\/([^/]+)\/complete$/, handle: completeWithdrawal },
  { method: 'POST', pattern: /^\/_sandbox\/withdrawals\/([^/]+)\/approve$/, handle: approveWithdrawal },
  {
    method: 'POST',
    pattern: /^\/_sandbox\/withdrawals\/([^/]+)\/decline$/,
    handle: refuseWithdrawal('declined'),
  },
  {
    method: 'POST',
    pattern: /^\/_sandbox\/withdrawals\/([^/]+)\/cancel$/,
    handle: refuseWithdrawal('cancelled'),
  },
  { method: 'GET', pattern: /^\/_sandbox\/approval-limits$/, handle: approvalLimitsReply },
  { method: 'POST', pattern: /^\/_sandbox\/approval-limits$/, handle: setApprovalLimit },
  {
    method: 'GET',
    pattern: /^\/_sandbox\/balances$/,
    handle: ({ state }) => reply(200, { data: state.ledger.list() }),
  },
  { method: 'POST', pattern: /^\/_sandbox\/balances$/, handle: setBalance },
  { method: 'GET', pattern: /^\/_sandbox\/callbacks$/, handle: listDeliveries },
  { method: 'POST', pattern: /^\/_sandbox\/callbacks$/, handle: configureCallbacks },
];

/** Answers one unsigned control request; bodies are optional JSON objects. */
export function handleControl(
  method: string,
  path: string,
  query: URLSearchParams,
  rawBody: Buffer,
  services: ControlServices,
): Reply {
  const match = matchRoute(ROUTES, method, path);
  if (!match) return notFound();
  try {
    return match.route.handle({ ...services, body: controlBody(rawBody), query }, match.params);
  } catch (error) {
    if (error instanceof ReplyError) return error.reply;
    throw error;
  }
}

function controlBody(rawBody: Buffer): Record<string, unknown> {
  if (rawBody.length === 0) return {};
  let body: unknown;
  try {
    body = parseJson(rawBody.toString('utf8'));
  } catch {
    throw badRequest('The body must be valid JSON.');
  }
  if (!isPlainObject(body)) throw badRequest('The body must be a JSON object.');
  return body;
}

function reset({ state, faults, traffic, callbacks }: Context): Reply {
  state.reset();
  faults.clear();
  traffic.reset();
  callbacks.reset();
  return reply(200, { reset: true });
}

function listRequests({ traffic, query }: Context): Reply {
  return reply(200, { requests: traffic.list(query.get('path')) });
}

function addFault({ faults, body }: Context): Reply {
  const fault = faults.add(body);
  if (typeof fault === 'string') throw badRequest(fault);
  return reply(201, {
    id: fault.id,
    path: fault.path,
    method: fault.method,
    kind: fault.kind,
    times: fault.remaining,
  });
}

function clearFaults({ faults }: Context): Reply {
  faults.clear();
  return reply(200, { cleared: true });
}

function setFeatures({ state, body }: Context): Reply {
  const { invoices_enabled: enabled, invoice_lookups: lookups, cancel_error: cancelError } = body;
  if (enabled === undefined && lookups === undefined && cancelError === undefined) {
    throw badRequest('Give invoices_enabled or invoice_lookups (true or false), or cancel_error (a text).');
  }
  if (enabled !== undefined && typeof enabled !== 'boolean') {
    throw badRequest('invoices_enabled must be true or false.');
  }
  if (lookups !== undefined && typeof lookups !== 'boolean') {
    throw badRequest('invoice_lookups must be true or false.');
  }
  if (cancelError !== undefined && typeof cancelError !== 'string') {
    throw badRequest('cancel_error must be a text.');
  }
  if (enabled !== undefined) state.invoicesEnabled = enabled;
  if (lookups !== undefined) state.invoiceLookups = lookups;
  if (cancelError !== undefined) state.cancelError = cancelError;
  return reply(200, {
    invoices_enabled: state.invoicesEnabled,
    invoice_lookups: state.invoiceLookups,
    cancel_error: state.cancelError,
  });
}

function advanceClock({ state, invoices, body }: Context): Reply {
  const seconds = body.advance_seconds === undefined ? 0 : Number(body.advance_seconds);
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw badRequest('advance_seconds must be a number of seconds >= 0.');
  }
  state.advanceClock(seconds);
  invoices.expireDue();
  return reply(200, { now: state.nowSeconds() });
}

function invoiceReply({ state, baseUrl }: Context, invoice: InvoiceRecord): Reply {
  return reply(200, invoiceControlView(invoice, state.nowSeconds(), baseUrl()));
}

/** Every invoice and withdrawal, for a checker that compares them with the plugin's records. */
function listTransactions({ state, baseUrl }: Context): Reply {
  const now = state.nowSeconds();
  return reply(200, {
    invoices: [...state.invoices.values()].map((invoice) => invoiceControlView(invoice, now, baseUrl())),
    withdrawals: [...state.withdrawals.values()].map(withdrawalView),
  });
}

function showInvoice(context: Context, [foreignId]: string[]): Reply {
  return invoiceReply(context, context.invoices.find(foreignId));
}

function payInvoice(context: Context, [foreignId]: string[]): Reply {
  return invoiceReply(context, context.invoices.pay(foreignId, paymentSpec(context.body)));
}

function confirmInvoice(context: Context, [foreignId]: string[]): Reply {
  const given = context.body.confirmations;
  const confirmations = given instanceof LosslessNumber ? Number(given.value) : NaN;
  if (!Number.isSafeInteger(confirmations) || confirmations < 1)
    throw badRequest('confirmations must be a whole number of at least 1.');
  return invoiceReply(context, context.invoices.confirm(foreignId, confirmations));
}

function settleInvoice(context: Context, [foreignId]: string[]): Reply {
  return invoiceReply(context, context.invoices.settle(foreignId));
}

function expireInvoice(context: Context, [foreignId]: string[]): Reply {
  return invoiceReply(context, context.invoices.expire(foreignId));
}

function failInvoice(context: Context, [foreignId]: string[]): Reply {
  const { error } = context.body;
  if (typeof error !== 'string' || error === '') throw badRequest('error must be a non-empty string.');
  return invoiceReply(context, context.invoices.fail(foreignId, error));
}

function paymentSpec(body: Record<string, unknown>): PaymentSpec {
  const kind = body.kind as PaymentKind;
  if (!PAYMENT_KINDS.includes(kind)) throw badRequest(`kind must be one of ${PAYMENT_KINDS.join(', ')}.`);
  const amount = body.amount === undefined ? undefined : positiveAmount(body.amount, 'amount');
  const currency = body.currency === undefined ? undefined : findCurrency(body.currency);
  if (body.currency !== undefined && currency?.type !== 'crypto') {
    throw badRequest('currency must be a supported cryptocurrency.');
  }
  if (body.hold !== undefined && typeof body.hold !== 'boolean') {
    throw badRequest('hold must be true or false.');
  }
  return { kind, amount, currency, hold: body.hold === true };
}

function positiveAmount(value: unknown, field: string, allowZero = false): Amount {
  const amount = toAmount(value);
  if (!amount || amount.isNegative() || (!allowZero && amount.isZero()) || !hasAtMost8Places(amount)) {
    throw badRequest(`${field} must be a decimal ${allowZero ? '>=' : '>'} 0 with at most 8 decimal places.`);
  }
  return amount;
}

function completeWithdrawal({ withdrawals, body }: Context, [foreignId]: string[]): Reply {
  const { status, error } = body;
  if (status !== 'confirmed' && status !== 'failed') throw badRequest('status must be confirmed or failed.');
  if (error !== undefined && typeof error !== 'string') throw badRequest('error must be a string.');
  return reply(200, withdrawalTransaction(withdrawals.complete(foreignId, status, error)));
}

function approveWithdrawal({ withdrawals }: Context, [foreignId]: string[]): Reply {
  return reply(200, withdrawalTransaction(withdrawals.approve(foreignId)));
}

function refuseWithdrawal(status: 'declined' | 'cancelled') {
  return ({ withdrawals, body }: Context, [foreignId]: string[]): Reply => {
    const { error } = body;
    if (error !== undefined && typeof error !== 'string') throw badRequest('error must be a string.');
    return reply(200, withdrawalTransaction(withdrawals.refuse(foreignId, status, error)));
  };
}

function approvalLimitsReply({ state }: Context): Reply {
  const limits = [...state.approvalLimits].map(([currency, limit]) => ({ currency, limit: fixed8(limit) }));
  return reply(200, { limits });
}

/** Sets a currency's approval limit (`limit`: a decimal >= 0), or removes it (`limit: null`). */
function setApprovalLimit(context: Context): Reply {
  const { state, body } = context;
  const currency = findCurrency(body.currency);
  if (!currency) throw badRequest('currency must be a supported currency code.');
  if (body.limit === null) state.approvalLimits.delete(currency.code);
  else state.approvalLimits.set(currency.code, positiveAmount(body.limit, 'limit', true));
  return approvalLimitsReply(context);
}

function setBalance({ state, body }: Context): Reply {
  const currency = findCurrency(body.currency);
  if (!currency) throw badRequest('currency must be a supported currency code.');
  const balance = positiveAmount(body.balance, 'balance', true);
  state.ledger.set(currency.code, balance);
  return reply(200, { currency: currency.code, type: currency.type, balance: fixed8(balance) });
}

function listDeliveries({ callbacks }: Context): Reply {
  return reply(200, { deliveries: callbacks.deliveries });
}

function configureCallbacks({ callbacks, body }: Context): Reply {
  const { url, retry_ms: retryMs, speed_up: speedUp, duplicate } = body;
  if (url !== undefined && url !== null && !isHttpUrl(url)) {
    throw badRequest('url must be an http:// URL or null.');
  }
  if (retryMs !== undefined && speedUp !== undefined) {
    throw badRequest('Give retry_ms or speed_up, not both.');
  }
  // Numbers in control bodies arrive as the parser's lossless numbers.
  const speed = speedUp instanceof LosslessNumber ? Number(speedUp) : speedUp === undefined ? undefined : NaN;
  if (speed !== undefined && !(speed >= 1 && speed <= 1_000_000)) {
    throw badRequest('speed_up must be a number from 1 to 1000000.');
  }
  const waits =
    speed !== undefined
      ? callbackRetrySchedule(speed)
      : retryMs === undefined
        ? undefined
        : Array.isArray(retryMs)
          ? retryMs.map(Number)
          : [NaN];
  if (waits?.some((wait) => !Number.isInteger(wait) || wait < 0)) {
    throw badRequest('retry_ms must be a list of non-negative integers.');
  }
  if (duplicate !== undefined && typeof duplicate !== 'boolean') {
    throw badRequest('duplicate must be true or false.');
  }
  const settings = callbacks.settings;
  if (url !== undefined) settings.url = url as string | null;
  if (waits) settings.retryMs = waits;
  if (duplicate !== undefined) settings.duplicate = duplicate;
  return reply(200, { url: settings.url, retry_ms: settings.retryMs, duplicate: settings.duplicate });
}

function isHttpUrl(value: unknown): boolean {
  try {
    return typeof value === 'string' && new URL(value).protocol === 'http:';
  } catch {
    return false;
  }
}
