import { convert, depositAddress, fakeTxid, findCurrency, type Currency } from './currencies';
import { badRequest, notFound, reply, ReplyError } from './http';
import { roundDown8, roundUp8, type Amount } from './money';
import { invoiceCallback, paidAmount, remainingAmount } from './records';
import type { InvoiceRecord, InvoiceStatus, SandboxState } from './state';
import type { InvoiceInput } from './validation';

export type Notify = (key: string, payload: unknown) => void;

export type PaymentKind = 'full' | 'over' | 'under' | 'partial';

export interface PaymentSpec {
  kind: PaymentKind;
  amount?: Amount;
  currency?: Currency;
  /** Stop at `processing` (payment seen, not yet confirmed) until the settle control call. */
  hold: boolean;
}

export const LIFETIME_SECONDS = 15 * 60;
/** Once a payment is seen, the service gives it this long to confirm (docs/payment-outcomes-notes.md). */
export const CONFIRMATION_SECONDS = 24 * 60 * 60;
export const DEPOSIT_FEE_RATE = '0.01';
export const CONFIRMATIONS = 6;
export const EXPIRED_ERROR = 'Timer expired. User not paid.';
export const EXPIRED_PARTLY_PAID_ERROR = 'Timer expired. User paid partially.';
export const UNDERPAID_ERROR = 'User paid less than required.';
export const CANCELLED_ERROR = 'Invoice cancelled by merchant.';

const CANCELLABLE: readonly InvoiceStatus[] = ['created', 'pending', 'processing'];
const PAYABLE: readonly InvoiceStatus[] = ['created', 'pending'];

/** The invoice life cycle: creation (spec 2.2), cancellation (spec 3) and the simulated payments and expiry. */
export class InvoiceDesk {
  constructor(
    private readonly state: SandboxState,
    private readonly notify: Notify,
  ) {}

  create(input: InvoiceInput): InvoiceRecord {
    const now = this.state.nowSeconds();
    const invoice: InvoiceRecord = {
      kind: 'invoice',
      id: this.state.takeTransactionId(),
      foreignId: input.foreignId,
      endUserReference: input.endUserReference,
      type: input.type,
      title: input.title,
      description: input.description,
      emailUser: input.emailUser,
      urlSuccess: input.urlSuccess,
      urlFailed: input.urlFailed,
      currency: input.currency,
      amount: input.amount,
      senderCurrency: null,
      senderAmount: null,
      address: null,
      fixedAt: null,
      releaseAt: input.timer ? now + LIFETIME_SECONDS : null,
      status: input.timer ? 'pending' : 'created',
      error: '',
      payments: [],
      credited: null,
      fee: null,
    };
    if (input.timer && input.senderCurrency) this.fixQuote(invoice, input.senderCurrency);
    this.state.addInvoice(invoice);
    return invoice;
  }

  find(foreignId: string): InvoiceRecord {
    const invoice = this.state.invoices.get(foreignId);
    if (!invoice) throw new ReplyError(notFound('Invoice not found'));
    return invoice;
  }

  cancel(foreignId: string): void {
    const invoice = this.find(foreignId);
    if (!CANCELLABLE.includes(invoice.status)) {
      throw new ReplyError(
        reply(400, {
          errors: { error: 'Invoice cannot be failed in its current state.', code: 'invalid_invoice_state' },
        }),
      );
    }
    this.finish(invoice, 'failed', this.state.cancelError);
  }

  pay(foreignId: string, spec: PaymentSpec): InvoiceRecord {
    const invoice = this.find(foreignId);
    const late = isExpired(invoice, this.state.cancelError);
    if (!PAYABLE.includes(invoice.status) && !late) {
      throw invalidState('Invoice cannot be paid in its current state.');
    }
    const partPayable = invoice.type === 'good_until_expired';
    if (spec.kind === 'partial' && !partPayable) {
      throw badRequest('Partial payments need a good_until_expired invoice.');
    }
    if (spec.kind === 'under' && partPayable) {
      throw badRequest('Use kind "partial" for a good_until_expired invoice.');
    }
    if (invoice.senderCurrency && spec.currency && spec.currency !== invoice.senderCurrency) {
      throw badRequest(`The invoice is payable only in ${invoice.senderCurrency.code}.`);
    }
    if (late && !invoice.senderCurrency) {
      throw badRequest(
        'The invoice expired before a payment currency was chosen: there is no address to pay.',
      );
    }
    const sender = invoice.senderCurrency ?? spec.currency ?? defaultPaymentCurrency(invoice);
    const owed = remainingAmount(invoice) ?? quote(invoice, sender);
    const amount = paymentAmount(spec, owed);
    // A timer-less invoice gets its payment currency, address and quote when the customer pays.
    if (!invoice.senderCurrency) this.fixQuote(invoice, sender);
    const confirmations = late && !spec.hold ? CONFIRMATIONS : 0;
    this.state.addDeposit(
      invoice,
      amount,
      fakeTxid(`${invoice.id}:${invoice.payments.length}`),
      confirmations,
    );
    if (late && spec.hold) {
      // Seen, not yet confirmed: the callback reports it; `settle` confirms it.
      this.notify(`invoice:${invoice.id}`, invoiceCallback(invoice));
      return invoice;
    }
    if (late) {
      this.payLate(invoice);
      return invoice;
    }
    if (spec.kind === 'partial') {
      this.transition(invoice, 'pending');
      return invoice;
    }
    // The payment is seen: the timer is extended for its confirmation, and the callback says until when.
    if (invoice.releaseAt !== null) invoice.releaseAt = this.state.nowSeconds() + CONFIRMATION_SECONDS;
    this.transition(invoice, 'processing');
    if (!spec.hold) this.settle(foreignId);
    return invoice;
  }

  /**
   * Confirms a payment held at `processing`: confirmed if enough arrived, failed otherwise. On an invoice already
   * failed (cancelled as the money came, or paid late with `hold`), the money seen is confirmed as a late payment.
   */
  settle(foreignId: string): InvoiceRecord {
    const invoice = this.find(foreignId);
    const unconfirmed = invoice.payments.filter((payment) => payment.confirmations < CONFIRMATIONS);
    if (invoice.status === 'failed' && unconfirmed.length > 0) {
      for (const payment of unconfirmed) payment.confirmations = CONFIRMATIONS;
      this.payLate(invoice);
      return invoice;
    }
    if (invoice.status !== 'processing') {
      throw invalidState('Invoice cannot be settled in its current state.');
    }
    for (const payment of invoice.payments) payment.confirmations = CONFIRMATIONS;
    if (paidAmount(invoice).lt(invoice.senderAmount!)) {
      this.finish(invoice, 'failed', UNDERPAID_ERROR);
      return invoice;
    }
    this.credit(invoice);
    this.finish(invoice, 'confirmed', '');
    return invoice;
  }

  /**
   * The blockchain's confirmations of the invoice's deposits grow, short of what confirms them (`settle` does that):
   * each deposit with fewer gets `confirmations`, and the callback reports them, its status unchanged.
   */
  confirm(foreignId: string, confirmations: number): InvoiceRecord {
    const invoice = this.find(foreignId);
    if (invoice.payments.length === 0) throw invalidState('The invoice has no deposit to confirm.');
    for (const payment of invoice.payments)
      payment.confirmations = Math.max(payment.confirmations, Math.min(confirmations, CONFIRMATIONS - 1));
    this.notify(`invoice:${invoice.id}`, invoiceCallback(invoice));
    return invoice;
  }

  /**
   * Money that reaches the address of an invoice whose timer has run out, or that was cancelled. The spec shows no
   * such transition; the sandbox does what peer services do: the invoice stays failed, the deposit is confirmed
   * and, once the money covers what was due, credited; the callback reports the new amounts.
   */
  private payLate(invoice: InvoiceRecord): void {
    if (!invoice.credited && !paidAmount(invoice).lt(invoice.senderAmount!)) this.credit(invoice);
    this.notify(`invoice:${invoice.id}`, invoiceCallback(invoice));
  }

  // Over-payments credit only the invoice amount; the customer is e-mailed about the difference (spec 2.1).
  private credit(invoice: InvoiceRecord): void {
    invoice.fee = roundDown8(invoice.amount.times(DEPOSIT_FEE_RATE));
    invoice.credited = invoice.amount.minus(invoice.fee);
    this.state.ledger.credit(invoice.currency.code, invoice.credited);
  }

  /** Fails an open invoice for a reason the sandbox does not model otherwise, in the given words. */
  fail(foreignId: string, error: string): InvoiceRecord {
    const invoice = this.find(foreignId);
    if (!CANCELLABLE.includes(invoice.status)) {
      throw invalidState('Invoice cannot be failed in its current state.');
    }
    this.finish(invoice, 'failed', error);
    return invoice;
  }

  expire(foreignId: string): InvoiceRecord {
    const invoice = this.find(foreignId);
    if (!PAYABLE.includes(invoice.status)) {
      throw invalidState('Invoice cannot be expired in its current state.');
    }
    this.finish(invoice, 'failed', invoice.payments.length > 0 ? EXPIRED_PARTLY_PAID_ERROR : EXPIRED_ERROR);
    return invoice;
  }

  /** Fails every unpaid timed invoice whose release time has come. */
  expireDue(): void {
    const now = this.state.nowSeconds();
    for (const invoice of this.state.invoices.values()) {
      if (invoice.status === 'pending' && invoice.releaseAt !== null && now >= invoice.releaseAt) {
        this.expire(invoice.foreignId);
      }
    }
  }

  private fixQuote(invoice: InvoiceRecord, sender: Currency): void {
    invoice.senderCurrency = sender;
    invoice.senderAmount = quote(invoice, sender);
    invoice.address = { id: this.state.takeAddressId(), ...depositAddress(sender, invoice.id) };
    invoice.fixedAt = this.state.nowSeconds();
  }

  private finish(invoice: InvoiceRecord, status: 'confirmed' | 'failed', error: string): void {
    invoice.error = error;
    this.transition(invoice, status);
  }

  private transition(invoice: InvoiceRecord, status: InvoiceStatus): void {
    invoice.status = status;
    this.notify(`invoice:${invoice.id}`, invoiceCallback(invoice));
  }
}

/** Failed by its timer or by the merchant's cancel: its address still takes money, which comes late. */
function isExpired(invoice: InvoiceRecord, cancelError: string): boolean {
  const closed = [EXPIRED_ERROR, EXPIRED_PARTLY_PAID_ERROR, CANCELLED_ERROR, cancelError];
  return invoice.status === 'failed' && closed.includes(invoice.error);
}

function invalidState(error: string): ReplyError {
  return new ReplyError(reply(400, { error, code: 'invalid_invoice_state' }));
}

// Rounded up so that the merchant never receives less than the invoice amount.
function quote(invoice: InvoiceRecord, sender: Currency): Amount {
  return roundUp8(convert(invoice.amount, invoice.currency, sender));
}

function defaultPaymentCurrency(invoice: InvoiceRecord): Currency {
  return invoice.currency.type === 'crypto' ? invoice.currency : findCurrency('BTC')!;
}

/** The amount sent: the given one or the kind's default; either must fit the kind. */
function paymentAmount(spec: PaymentSpec, remaining: Amount): Amount {
  const half = roundDown8(remaining.div(2));
  const amount =
    spec.amount ??
    { full: remaining, over: roundUp8(remaining.times('1.1')), under: half, partial: half }[spec.kind];
  const fits = {
    full: amount.eq(remaining),
    over: amount.gt(remaining),
    under: amount.gt(0) && amount.lt(remaining),
    partial: amount.gt(0) && amount.lt(remaining),
  }[spec.kind];
  if (!fits) {
    throw badRequest(
      `${amount.toFixed()} does not fit a "${spec.kind}" payment; ${remaining.toFixed(8)} is owed.`,
      'bad_amount',
    );
  }
  return amount;
}
