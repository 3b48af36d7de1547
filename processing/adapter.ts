// The domain's port to the payment service, over the typed client: requests, answers and errors in the domain's
// terms (processing/translate.ts words them).
import type {
  CheckoutRequest,
  FoundWithdrawal,
  InvoiceNews,
  PairQuery,
  RefundRequest,
  TransactionQuery,
  Receiver,
  Sender,
} from '../domain/model';
import type { ProcessingApi } from '../domain/ports';
import type { ProcessingClient } from './client';
import { depositIdsOf, depositNews } from './deposits';
import { ProcessingNotFoundError } from './errors';
import {
  errorText,
  invoiceDetails,
  invoiceRequest,
  moneyNews,
  toServiceError,
  withdrawalDetails,
  withdrawalRequest,
} from './translate';
import type { TransactionKey, TransactionRecord } from './wire';
import { isWithdrawalFor, withdrawalFromTransaction } from './withdrawal';

export class ProcessingAdapter implements ProcessingApi {
  constructor(private readonly client: ProcessingClient) {}

  createInvoice(upstreamForeignId: string, request: CheckoutRequest, sender?: Sender) {
    return translated(async () => {
      const invoice = await this.client.createInvoice(invoiceRequest(upstreamForeignId, request, sender));
      return { status: invoice.status, details: invoiceDetails(invoice) };
    });
  }

  cancelInvoice(upstreamForeignId: string) {
    return translated(() => this.client.cancelInvoice(upstreamForeignId));
  }

  invoiceNews(invoiceId: number) {
    return translated(async (): Promise<InvoiceNews | undefined> => {
      const record = await this.lookUp({ id: invoiceId });
      return (
        record && {
          upstreamForeignId: typeof record.foreign_id === 'string' ? record.foreign_id : null,
          ...statusNews(record),
          ...moneyNews(record, 'getTransaction'),
          depositIds: depositIdsOf(record.transactions),
        }
      );
    });
  }

  depositNews(depositIds: number[], upstreamForeignId: string) {
    return translated(async () => {
      const found = await Promise.all(depositIds.map((id) => this.lookUp({ id })));
      return depositNews(
        found.filter((record): record is TransactionRecord => record !== undefined),
        upstreamForeignId,
      );
    });
  }

  createWithdrawal(request: RefundRequest, receiver?: Receiver) {
    return translated(async () => {
      const withdrawal = await this.client.createWithdrawal(withdrawalRequest(request, receiver));
      return { status: withdrawal.status, details: withdrawalDetails(withdrawal) };
    });
  }

  findWithdrawal(request: RefundRequest) {
    return translated(async (): Promise<FoundWithdrawal | undefined> => {
      const record = await this.lookUp({ foreign_id: request.foreignId });
      if (!record) return undefined;
      const ours = isWithdrawalFor(record, withdrawalRequest(request));
      return {
        ...statusNews(record),
        withdrawal: ours ? withdrawalDetails(withdrawalFromTransaction(record)) : undefined,
      };
    });
  }

  listBalances() {
    return translated(() => this.client.listBalances());
  }

  rates(query: PairQuery) {
    return translated(() => this.client.rates(query));
  }

  pairs(query: PairQuery) {
    return translated(() => this.client.pairs(query));
  }

  transaction(query: TransactionQuery) {
    return translated(() => this.client.getTransaction(query));
  }

  private async lookUp(key: TransactionKey): Promise<TransactionRecord | undefined> {
    try {
      return await this.client.getTransaction(key);
    } catch (error) {
      if (error instanceof ProcessingNotFoundError) return undefined;
      throw error;
    }
  }
}

function statusNews(record: TransactionRecord) {
  return { status: record.status, error: errorText(record.error) };
}

async function translated<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw toServiceError(error);
  }
}
