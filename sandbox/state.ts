import type { Currency } from './currencies';
import { Ledger } from './ledger';
import type { Amount } from './money';
import type { InvoiceType } from './validation';

export type InvoiceStatus = 'created' | 'pending' | 'processing' | 'confirmed' | 'failed';
/** Pending: held over an approval limit until approved (→ processing) or declined; the rest as the service names them. */
export type WithdrawalStatus = 'pending' | 'processing' | 'confirmed' | 'failed' | 'declined' | 'cancelled';

/** One blockchain transfer seen for a transaction. */
export interface ChainTransfer {
  id: number;
  amount: Amount;
  txid: string;
  confirmations: number;
}

export interface InvoiceRecord {
  kind: 'invoice';
  id: number;
  foreignId: string;
  endUserReference?: string;
  type: InvoiceType;
  title: string;
  description?: string;
  emailUser: string;
  urlSuccess: string;
  urlFailed: string;
  currency: Currency;
  amount: Amount;
  senderCurrency: Currency | null;
  senderAmount: Amount | null;
  address: { id: number; address: string; tag: string | null } | null;
  fixedAt: number | null;
  releaseAt: number | null;
  status: InvoiceStatus;
  error: string;
  payments: ChainTransfer[];
  /** What the merchant was credited on confirmation, net of the deposit fee. */
  credited: Amount | null;
  fee: Amount | null;
}

export interface WithdrawalRecord {
  kind: 'withdrawal';
  id: number;
  foreignId: string;
  endUserReference?: string;
  senderCurrency: Currency;
  senderAmount: Amount;
  receivedCurrency: Currency;
  receivedAmount: Amount;
  address: { id: number; address: string };
  status: WithdrawalStatus;
  error: string;
  transfers: ChainTransfer[];
}

/** A deposit to an invoice's address: a transaction of its own, which the lookup finds by its id (spec 4.7). */
export interface DepositRecord {
  kind: 'deposit';
  invoice: InvoiceRecord;
  transfer: ChainTransfer;
}

/** Everything a reset puts back: records, id sequences, ledger, feature switches and the clock offset. */
export class SandboxState {
  invoices = new Map<string, InvoiceRecord>();
  withdrawals = new Map<string, WithdrawalRecord>();
  transactions = new Map<number, InvoiceRecord | WithdrawalRecord | DepositRecord>();
  readonly ledger = new Ledger();
  invoicesEnabled = true;
  /** Whether the lookup finds an invoice by its id, which the spec does not promise; deposits it always finds. */
  invoiceLookups: boolean;
  /** The error a merchant's cancel fails an invoice with: services word it differently. */
  cancelError: string;
  /** Per currency code: a withdrawal debiting more than this waits for approval (`pending`). */
  approvalLimits: Map<string, Amount>;
  private clockOffsetMs = 0;
  private nextTransactionId = 1;
  private nextAddressId = 1;
  private nextTransferId = 1;

  constructor(
    private readonly baseNow: () => number,
    private readonly seedInvoiceLookups = true,
    private readonly seedCancelError: string,
    private readonly seedApprovalLimits: ReadonlyMap<string, Amount> = new Map(),
  ) {
    this.invoiceLookups = seedInvoiceLookups;
    this.cancelError = seedCancelError;
    this.approvalLimits = new Map(seedApprovalLimits);
  }

  reset(): void {
    this.invoices = new Map();
    this.withdrawals = new Map();
    this.transactions = new Map();
    this.ledger.reset();
    this.invoicesEnabled = true;
    this.invoiceLookups = this.seedInvoiceLookups;
    this.cancelError = this.seedCancelError;
    this.approvalLimits = new Map(this.seedApprovalLimits);
    this.clockOffsetMs = 0;
    this.nextTransactionId = 1;
    this.nextAddressId = 1;
    this.nextTransferId = 1;
  }

  nowMs(): number {
    return this.baseNow() + this.clockOffsetMs;
  }

  nowSeconds(): number {
    return Math.floor(this.nowMs() / 1000);
  }

  advanceClock(seconds: number): void {
    this.clockOffsetMs += seconds * 1000;
  }

  takeTransactionId(): number {
    return this.nextTransactionId++;
  }

  takeAddressId(): number {
    return this.nextAddressId++;
  }

  takeTransferId(): number {
    return this.nextTransferId++;
  }

  addInvoice(invoice: InvoiceRecord): void {
    this.invoices.set(invoice.foreignId, invoice);
    this.transactions.set(invoice.id, invoice);
  }

  /** A deposit takes its id from the transaction sequence, so that a lookup by id is never ambiguous. */
  addDeposit(
    invoice: InvoiceRecord,
    amount: ChainTransfer['amount'],
    txid: string,
    confirmations: number,
  ): void {
    const transfer = { id: this.takeTransactionId(), amount, txid, confirmations };
    invoice.payments.push(transfer);
    this.transactions.set(transfer.id, { kind: 'deposit', invoice, transfer });
  }

  addWithdrawal(withdrawal: WithdrawalRecord): void {
    this.withdrawals.set(withdrawal.foreignId, withdrawal);
    this.transactions.set(withdrawal.id, withdrawal);
  }
}
