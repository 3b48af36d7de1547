import { jsonNumber } from './json';
import { fixed8, Money, type Amount } from './money';
import type { ChainTransfer, DepositRecord, InvoiceRecord, WithdrawalRecord } from './state';

/** Confirmations at which the sandbox counts a deposit confirmed (sandbox/invoices.ts sets them). */
const CONFIRMED_AT = 6;

// The wire shapes of spec 2.2, 2.5 and 2.6. Amounts in 2.6 records are JSON numbers written with exact digits.

const amountNumber = (amount: Amount) => jsonNumber(fixed8(amount));

export function paidAmount(invoice: InvoiceRecord): Amount {
  return invoice.payments.reduce((sum, payment) => sum.plus(payment.amount), new Money(0));
}

/** Still owed in the payment currency; undefined before a payment currency is fixed. */
export function remainingAmount(invoice: InvoiceRecord): Amount | undefined {
  if (!invoice.senderAmount) return undefined;
  const remaining = invoice.senderAmount.minus(paidAmount(invoice));
  return remaining.isNegative() ? new Money(0) : remaining;
}

/** The invoice object of spec 2.2, as returned by create. */
export function invoiceView(invoice: InvoiceRecord, nowSeconds: number, baseUrl: string) {
  return {
    id: invoice.id,
    url: `${baseUrl}/pay/${invoice.id}`,
    foreign_id: invoice.foreignId,
    ...(invoice.endUserReference !== undefined && { end_user_reference: invoice.endUserReference }),
    address: invoice.address?.address ?? null,
    ...(invoice.senderCurrency?.usesTag && { tag: invoice.address?.tag ?? null }),
    title: invoice.title,
    status: invoice.status,
    currency: invoice.currency.code,
    amount: fixed8(invoice.amount),
    sender_currency: invoice.senderCurrency?.code ?? null,
    sender_amount: invoice.senderAmount ? fixed8(invoice.senderAmount) : null,
    fixed_at: invoice.fixedAt,
    release_at: invoice.releaseAt,
    seconds_left: invoice.releaseAt === null ? null : Math.max(0, invoice.releaseAt - nowSeconds),
  };
}

/** The control API's fuller view: the 2.2 object plus what the sandbox tracks about payment. */
export function invoiceControlView(invoice: InvoiceRecord, nowSeconds: number, baseUrl: string) {
  const remaining = remainingAmount(invoice);
  return {
    ...invoiceView(invoice, nowSeconds, baseUrl),
    type: invoice.type,
    error: invoice.error,
    paid_amount: fixed8(paidAmount(invoice)),
    remaining_amount: remaining ? fixed8(remaining) : null,
    credited_amount: invoice.credited ? fixed8(invoice.credited) : null,
    // What a test checks the plugin's payments against: each deposit's chain transaction, first sent first.
    deposits: invoice.payments.map(({ id, txid, amount, confirmations }) => ({
      id,
      txid,
      amount: fixed8(amount),
      confirmations,
    })),
  };
}

function isPartlyPaid(invoice: InvoiceRecord): boolean {
  const remaining = remainingAmount(invoice);
  return invoice.type === 'good_until_expired' && invoice.payments.length > 0 && !!remaining?.gt(0);
}

/** The transaction record of spec 2.6 for an invoice deposit (type `invoice`). */
export function invoiceTransaction(invoice: InvoiceRecord) {
  const sender = invoice.senderCurrency;
  const address = invoice.address;
  return {
    id: invoice.id,
    foreign_id: invoice.foreignId,
    type: 'invoice',
    crypto_address: sender && address && { id: address.id, currency: sender.code, ...addressFields(address) },
    currency_sent: sender && {
      currency: sender.code,
      amount: amountNumber(paidAmount(invoice)),
      ...(isPartlyPaid(invoice) && { remaining_amount: amountNumber(remainingAmount(invoice)!) }),
    },
    currency_received: {
      currency: invoice.currency.code,
      amount: amountNumber(invoice.credited ?? new Money(0)),
    },
    transactions: invoice.payments.map((payment) =>
      transferEntry(payment, sender?.code ?? '', 'deposit', address ? addressFields(address) : undefined),
    ),
    fees: invoice.fee
      ? [
          {
            type: 'fee_crypto_deposit_wallet_client',
            currency: invoice.currency.code,
            amount: amountNumber(invoice.fee),
          },
        ]
      : [],
    error: invoice.error,
    status: invoice.status,
  };
}

/**
 * The transaction record of spec 2.6 for one deposit to an invoice's address: what it brought, under the invoice's
 * foreign_id, and its own status (`processing` until confirmed). The invoice's status and credit are not in it.
 */
export function depositTransaction({ invoice, transfer }: DepositRecord) {
  const sender = invoice.senderCurrency!;
  const address = invoice.address!;
  return {
    id: transfer.id,
    foreign_id: invoice.foreignId,
    type: 'deposit',
    crypto_address: { id: address.id, currency: sender.code, ...addressFields(address) },
    currency_sent: { currency: sender.code, amount: amountNumber(transfer.amount) },
    currency_received: { currency: sender.code, amount: amountNumber(transfer.amount) },
    transactions: [transferEntry(transfer, sender.code, 'deposit', addressFields(address))],
    fees: [],
    error: '',
    status: transfer.confirmations >= CONFIRMED_AT ? 'confirmed' : 'processing',
  };
}

/** The callback body for an invoice: its transaction record plus the quote and expiry times. */
export function invoiceCallback(invoice: InvoiceRecord) {
  return { ...invoiceTransaction(invoice), fixed_at: invoice.fixedAt, expires_at: invoice.releaseAt };
}

/** The withdrawal object of spec 2.5, as returned by create. */
export function withdrawalView(withdrawal: WithdrawalRecord) {
  return {
    id: withdrawal.id,
    foreign_id: withdrawal.foreignId,
    ...(withdrawal.endUserReference !== undefined && { end_user_reference: withdrawal.endUserReference }),
    type: 'withdrawal_instant_exchange',
    status: withdrawal.status,
    sender_currency: withdrawal.senderCurrency.code,
    sender_amount: fixed8(withdrawal.senderAmount),
    received_currency: withdrawal.receivedCurrency.code,
    received_amount: fixed8(withdrawal.receivedAmount),
  };
}

/** The transaction record of spec 2.6 for an instant withdrawal; the type is spelled as the service spells it. */
export function withdrawalTransaction(withdrawal: WithdrawalRecord) {
  const address = { address: withdrawal.address.address, tag: null };
  return {
    id: withdrawal.id,
    foreign_id: withdrawal.foreignId,
    type: 'withrawal_exchange',
    crypto_address: { id: withdrawal.address.id, currency: withdrawal.receivedCurrency.code, ...address },
    currency_sent: {
      currency: withdrawal.senderCurrency.code,
      amount: amountNumber(withdrawal.senderAmount),
    },
    currency_received: {
      currency: withdrawal.receivedCurrency.code,
      amount: amountNumber(withdrawal.receivedAmount),
    },
    transactions: withdrawal.transfers.map((transfer) =>
      transferEntry(transfer, withdrawal.receivedCurrency.code, 'withdrawal', address),
    ),
    fees: [],
    error: withdrawal.error,
    status: withdrawal.status,
  };
}

function addressFields(address: { address: string; tag: string | null }) {
  return { address: address.address, tag: address.tag };
}

function transferEntry(
  transfer: ChainTransfer,
  currency: string,
  type: 'deposit' | 'withdrawal',
  address = { address: '', tag: null as string | null },
) {
  return {
    id: transfer.id,
    currency,
    transaction_type: 'blockchain',
    type,
    address: address.address,
    tag: address.tag,
    amount: amountNumber(transfer.amount),
    txid: transfer.txid,
    confirmations: transfer.confirmations,
  };
}
