// Typed client of the Merchant Processing API v2 in its own words: one line per endpoint over the shared request
// sender. The domain reaches it through processing/adapter.ts.
import {
  ProcessingConnectionError,
  ProcessingNotFoundError,
  ProcessingUpstreamError,
  ProcessingValidationError,
} from './errors';
import { toAmount8 } from './money';
import { RequestSender, type Endpoint, type RequestSenderOptions } from './request-sender';
import type {
  AccountBalance,
  CreateInvoiceRequest,
  CurrencyPair,
  Invoice,
  PairEntry,
  TransactionKey,
  TransactionRecord,
  Withdrawal,
  WithdrawalRequest,
} from './wire';
import { isWithdrawalFor, withdrawalFromTransaction } from './withdrawal';

export type ProcessingClientOptions = RequestSenderOptions;

export class ProcessingClient {
  private readonly sender: RequestSender;

  /** Opens one keep-alive pool per instance: create the client once per process, at module scope. */
  constructor(options: ProcessingClientOptions) {
    this.sender = new RequestSender(options);
  }

  async createInvoice(request: CreateInvoiceRequest): Promise<Invoice> {
    const amount = toAmount8(request.amount, 'amount', { operation: 'createInvoice' });
    return this.sender.send({ ...CREATE_INVOICE, body: { ...request, amount } });
  }

  async cancelInvoice(foreignId: string): Promise<void> {
    await this.sender.send({ ...CANCEL_INVOICE, path: cancelPath(foreignId), body: {} });
  }

  /**
   * Never re-sends blindly. After an unknown outcome, an upstream error or a duplicate-foreign_id refusal it
   * looks the withdrawal up by foreign_id: found → that withdrawal; 404 → sent once more; else → the first error.
   */
  async createWithdrawal(request: WithdrawalRequest): Promise<Withdrawal> {
    const amount = toAmount8(request.sender_amount, 'sender_amount', { operation: 'createWithdrawal' });
    const send = () =>
      this.sender.send<Withdrawal>({ ...CREATE_WITHDRAWAL, body: { ...request, sender_amount: amount } });
    try {
      return await send();
    } catch (error) {
      if (!mayHaveBeenCreated(error)) throw error;
      let record: TransactionRecord;
      try {
        record = await this.getTransaction({ foreign_id: request.foreign_id });
      } catch (lookupError) {
        if (lookupError instanceof ProcessingNotFoundError) return send();
        throw error;
      }
      if (!isWithdrawalFor(record, request)) throw error;
      return { ...withdrawalFromTransaction(record), ...endUserReference(request) };
    }
  }

  async listBalances(): Promise<AccountBalance[]> {
    return this.sender.send({ ...LIST_BALANCES, body: {} });
  }

  async rates(query: CurrencyPair): Promise<PairEntry[]> {
    return this.sender.send({ ...RATES, body: pair(query) });
  }

  async pairs(query: CurrencyPair): Promise<PairEntry[]> {
    return this.sender.send({ ...PAIRS, body: pair(query) });
  }

  /** GET with the query in the URL and the same value in the signed JSON body, as the spec's sample does. */
  async getTransaction(query: TransactionKey): Promise<TransactionRecord> {
    const body = transactionKey(query);
    const search = 'id' in body ? { id: String(body.id) } : body;
    return this.sender.send({ ...LOOKUP, query: search, body });
  }

  /** Closes the pool's sockets; for tests and local runners (a Lambda keeps its client for life). */
  close(): Promise<void> {
    return this.sender.close();
  }
}

const CREATE_INVOICE: Endpoint = {
  operation: 'createInvoice',
  method: 'POST',
  path: '/v2/invoices/create',
  retry: 'unsent',
  expect: 'object',
};
const CANCEL_INVOICE: Endpoint = {
  operation: 'cancelInvoice',
  method: 'POST',
  path: '/v2/invoices/{foreign_id}/cancel/',
  retry: 'never',
  expect: 'nothing',
};
const CREATE_WITHDRAWAL: Endpoint = {
  operation: 'createWithdrawal',
  method: 'POST',
  path: '/v2/crypto/withdrawal_instant_exchange',
  retry: 'unsent',
  expect: 'object',
};
const LIST_BALANCES: Endpoint = {
  operation: 'listBalances',
  method: 'POST',
  path: '/v2/accounts/list',
  retry: 'read',
  expect: 'list',
};
const RATES: Endpoint = {
  operation: 'rates',
  method: 'POST',
  path: '/v2/currencies/rates',
  retry: 'read',
  expect: 'list',
};
const PAIRS: Endpoint = {
  operation: 'pairs',
  method: 'POST',
  path: '/v2/currencies/pairs',
  retry: 'read',
  expect: 'list',
};
const LOOKUP: Endpoint = {
  operation: 'getTransaction',
  method: 'GET',
  path: '/v2/transactions/info',
  retry: 'read',
  expect: 'record',
};

function cancelPath(foreignId: string): string {
  return `/v2/invoices/${encodeURIComponent(requireText(foreignId, 'foreign_id', 'cancelInvoice'))}/cancel/`;
}

function pair(query: CurrencyPair): CurrencyPair {
  return { currency_from: query.currency_from, currency_to: query.currency_to };
}

function transactionKey(query: TransactionKey): { id: number } | { foreign_id: string } {
  if ('id' in query) {
    if (Number.isSafeInteger(query.id) && query.id > 0) return { id: query.id };
    throw invalidArgument('getTransaction', 'id', 'must be a positive integer');
  }
  return { foreign_id: requireText(query.foreign_id, 'foreign_id', 'getTransaction') };
}

function requireText(value: unknown, field: string, operation: string): string {
  if (typeof value === 'string' && value !== '') return value;
  throw invalidArgument(operation, field, 'must be a non-empty string');
}

function invalidArgument(operation: string, field: string, reason: string): ProcessingValidationError {
  return new ProcessingValidationError({
    operation,
    code: 'invalid_request',
    message: `${field} ${reason}`,
    fields: { [field]: reason },
  });
}

function mayHaveBeenCreated(error: unknown): boolean {
  if (error instanceof ProcessingConnectionError) return error.outcomeUnknown;
  if (error instanceof ProcessingUpstreamError) return true;
  return error instanceof ProcessingValidationError && error.isDuplicateForeignId;
}

/** The lookup record lacks end_user_reference; the request carries it. */
function endUserReference(request: WithdrawalRequest): Pick<Withdrawal, 'end_user_reference'> {
  return request.end_user_reference === undefined ? {} : { end_user_reference: request.end_user_reference };
}
