// The Medusa v2 payment provider. It implements IPaymentProvider without extending AbstractPaymentProvider, so that
// nothing of Medusa is imported at run time: Medusa's loader needs only the static fields below.
import type {
  AuthorizePaymentInput,
  AuthorizePaymentOutput,
  CancelPaymentInput,
  CancelPaymentOutput,
  CapturePaymentInput,
  CapturePaymentOutput,
  DeletePaymentInput,
  DeletePaymentOutput,
  GetPaymentStatusInput,
  GetPaymentStatusOutput,
  InitiatePaymentInput,
  InitiatePaymentOutput,
  IPaymentProvider,
  ProviderWebhookPayload,
  RefundPaymentInput,
  RefundPaymentOutput,
  RetrievePaymentInput,
  RetrievePaymentOutput,
  UpdatePaymentInput,
  UpdatePaymentOutput,
  WebhookActionResult,
} from '@medusajs/types';
import { decimalString, sameAmount } from './amounts';
import {
  pluginClients,
  refused,
  type CheckoutBody,
  type CheckoutView,
  type InvoiceView,
  type PluginClients,
  type RefundView,
  type WebhookEvent,
} from './client';
import { MerchantPaymentsError } from './errors';
import { invoiceForeignId, MAX_REVISION, refundForeignId } from './ids';
import { closeInvoice, readInvoice } from './invoices';
import { REVISION_KEY, SESSION_KEY, SESSION_STATUS, WEBHOOK_ACTION } from './mapping';
import { resolveOptions, type MerchantPaymentsOptions, type ResolvedOptions } from './options';
import { verifiedEvent } from './webhook';

/** What the provider keeps in a session's data: what the storefront's widget needs, and never a token. */
export interface SessionData {
  session_id: string;
  /** The plugin's invoice for the session's current amount. */
  foreign_id: string;
  /** How many amounts the session has had: each has its own invoice. */
  revision: number;
  amount: string;
  currency: string;
  /** The invoice's status in the plugin, when last read. */
  status: InvoiceView['status'];
  /** The widget's `invoiceUrl`: the customer's view of the invoice. */
  invoice_url: string;
  /** The widget's `clientSecret`: it opens this invoice's customer view alone. */
  client_secret: string | null;
  payment_url: string | null;
  refunds?: Array<Pick<RefundView, 'foreign_id' | 'status' | 'debited_amount' | 'claim_url'>>;
  /** The latest refund's claim link, when it was made without an address: send it to the customer. */
  claim_url?: string | null;
}

const CURRENCY = /^[A-Z0-9]{2,10}$/;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const ADDRESS = /^[\x21-\x7e]{1,256}$/;
// A session whose invoice keeps colliding with other bodies is a bug, not a reason to make invoices forever.
const MAX_NEW_REVISIONS = 5;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

export class MerchantPaymentsProvider implements IPaymentProvider {
  /** Medusa names the provider `pp_merchant-payments_<id>`, and its webhook route `/hooks/payment/merchant-payments_<id>`. */
  static identifier = 'merchant-payments';
  /** What AbstractPaymentProvider.isPaymentProvider reads, as a subclass of it would carry. */
  static _isPaymentProvider = true;

  /** Medusa calls it as it loads the provider: a missing or malformed option stops the server, naming it. */
  static validateOptions(options: Record<string, unknown>): void {
    resolveOptions(options);
  }

  protected readonly options: ResolvedOptions;
  private readonly plugin: PluginClients;

  constructor(_container: unknown, options: MerchantPaymentsOptions) {
    this.options = resolveOptions(options);
    this.plugin = pluginClients(this.options);
  }

  getIdentifier(): string {
    return MerchantPaymentsProvider.identifier;
  }

  async initiatePayment(input: InitiatePaymentInput): Promise<InitiatePaymentOutput> {
    const data = input.data ?? {};
    const sessionId = text(data.session_id) ?? text(input.context?.idempotency_key);
    const opened = await this.openInvoice(input, sessionId, 1);
    return { id: opened.foreign_id, status: SESSION_STATUS[opened.status], data: { ...data, ...opened } };
  }

  async updatePayment(input: UpdatePaymentInput): Promise<UpdatePaymentOutput> {
    const data = input.data ?? {};
    const current = this.session(data, false);
    if (!current) return this.initiatePayment(input);
    const amount = decimalString(input.amount, 'amount');
    if (sameAmount(amount, current.amount) && this.currency(input.currency_code) === current.currency) {
      return { data };
    }
    // The old invoice is closed before the new one opens, so a session never has two payable invoices.
    await closeInvoice(this.plugin, current.foreign_id);
    const opened = await this.openInvoice(input, current.session_id, current.revision + 1);
    return { status: SESSION_STATUS[opened.status], data: { ...data, ...opened } };
  }

  async authorizePayment(input: AuthorizePaymentInput): Promise<AuthorizePaymentOutput> {
    return this.getPaymentStatus(input);
  }

  async getPaymentStatus(input: GetPaymentStatusInput): Promise<GetPaymentStatusOutput> {
    const data = input.data ?? {};
    const view = await readInvoice(this.plugin, this.session(data, true)!.foreign_id);
    return { status: SESSION_STATUS[view.status], data: { ...data, status: view.status } };
  }

  /** A paid invoice is already captured: the plugin holds the money, so nothing is asked of it. */
  async capturePayment(input: CapturePaymentInput): Promise<CapturePaymentOutput> {
    return { data: input.data ?? {} };
  }

  async retrievePayment(input: RetrievePaymentInput): Promise<RetrievePaymentOutput> {
    return { data: (await this.getPaymentStatus(input)).data };
  }

  async cancelPayment(input: CancelPaymentInput): Promise<CancelPaymentOutput> {
    return { data: await this.closeSession(input.data ?? {}) };
  }

  async deletePayment(input: DeletePaymentInput): Promise<DeletePaymentOutput> {
    return { data: await this.closeSession(input.data ?? {}) };
  }

  async refundPayment(input: RefundPaymentInput): Promise<RefundPaymentOutput> {
    const data = input.data ?? {};
    const session = this.session(data, true)!;
    const foreignId = refundForeignId(input.context?.idempotency_key);
    const amount = decimalString(input.amount, 'The refund amount');
    const invoice = await readInvoice(this.plugin, session.foreign_id);
    // The plugin refunds in the currency the store was credited in; Medusa's amount is in the cart's.
    if (invoice.net_currency !== null && invoice.net_currency !== invoice.currency) {
      throw new MerchantPaymentsError(
        'not_allowed',
        'refund_currency_differs',
        `Invoice ${session.foreign_id} was credited in ${invoice.net_currency}, not ${invoice.currency}: refund it in the plugin's console`,
      );
    }
    const address = text(data.refund_address);
    if (address !== undefined && !ADDRESS.test(address)) {
      throw new MerchantPaymentsError(
        'invalid_data',
        'invalid_refund_address',
        'data.refund_address is not an address',
      );
    }
    const answer = await this.plugin.send(() =>
      this.plugin.admin.POST('/invoices/{foreign_id}/refunds', {
        params: { path: { foreign_id: session.foreign_id } },
        body: { foreign_id: foreignId, debited_amount: amount, ...(address ? { address } : {}) },
      }),
    );
    if (answer.status === 409 && answer.error?.code === 'refund_exceeds_refundable') {
      const left = answer.error.refundable;
      throw new MerchantPaymentsError(
        'not_allowed',
        'refund_exceeds_refundable',
        `A refund of ${amount} exceeds what the order has left to refund after the payment service's fees (${left?.amount ?? '?'} ${left?.currency ?? ''})`.trim(),
      );
    }
    if (answer.status !== 200 && answer.status !== 201)
      throw refused(`Refunding ${session.foreign_id}`, answer);
    const refund = answer.data as RefundView;
    const entry = {
      foreign_id: refund.foreign_id,
      status: refund.status,
      debited_amount: refund.debited_amount,
      claim_url: refund.claim_url,
    };
    const earlier = (session.refunds ?? []).filter((one) => one.foreign_id !== refund.foreign_id);
    return { data: { ...data, refunds: [...earlier, entry], claim_url: refund.claim_url } };
  }

  async getWebhookActionAndData(payload: ProviderWebhookPayload['payload']): Promise<WebhookActionResult> {
    const event = verifiedEvent(this.options.webhook_secret, payload.rawData, payload.headers ?? {});
    return this.webhookAction(event);
  }

  /** The action for a verified event; an event the provider cannot place is `not_supported`, never a throw. */
  private async webhookAction(event: WebhookEvent): Promise<WebhookActionResult> {
    const notSupported: WebhookActionResult = { action: 'not_supported' };
    if (typeof event?.type !== 'string' || !event.type.startsWith('invoice.') || !event.data)
      return notSupported;
    const view = event.data as InvoiceView;
    const sessionId = text(view.metadata?.[SESSION_KEY]);
    const action = WEBHOOK_ACTION[view.status];
    if (!sessionId || !action) return notSupported;
    // An invoice we closed for a new amount: its session lives on in the next revision's invoice.
    if (view.status === 'cancelled' && (await this.replaced(sessionId, view))) return notSupported;
    return { action, data: { session_id: sessionId, amount: view.amount } };
  }

  private async replaced(sessionId: string, view: InvoiceView): Promise<boolean> {
    const revision = Number(view.metadata?.[REVISION_KEY]);
    if (!Number.isInteger(revision) || revision >= MAX_REVISION) return false;
    const next = invoiceForeignId(sessionId, revision + 1);
    const answer = await this.plugin.send(() =>
      this.plugin.storefront.GET('/invoices/{foreign_id}', { params: { path: { foreign_id: next } } }),
    );
    if (answer.status === 404) return false;
    if (answer.status !== 200) throw refused(`Reading ${next}`, answer);
    return true;
  }

  private currency(code: unknown): string {
    const currency = typeof code === 'string' ? code.toUpperCase() : '';
    if (!CURRENCY.test(currency)) {
      throw new MerchantPaymentsError(
        'invalid_data',
        'invalid_currency',
        'currency_code must be 2 to 10 letters or digits',
      );
    }
    return currency;
  }

  /** The session's data as the provider wrote it; `required` throws when it is not there. */
  private session(data: Record<string, unknown>, required: boolean): SessionData | undefined {
    const ours =
      typeof data.foreign_id === 'string' &&
      typeof data.session_id === 'string' &&
      typeof data.amount === 'string' &&
      typeof data.currency === 'string' &&
      Number.isInteger(data.revision);
    if (ours) return data as unknown as SessionData;
    if (!required) return undefined;
    throw new MerchantPaymentsError(
      'unexpected_state',
      'no_invoice',
      "The payment session's data names no invoice of the payments plugin",
    );
  }

  /**
   * Checks out the session's invoice at `revision`, retried with the same foreign_id whenever an answer is lost.
   * Should that foreign_id already hold another body, it is closed and the next revision tried.
   */
  private async openInvoice(
    input: InitiatePaymentInput,
    sessionId: string | undefined,
    revision: number,
  ): Promise<Omit<SessionData, 'refunds' | 'claim_url'>> {
    if (!sessionId) {
      throw new MerchantPaymentsError(
        'invalid_data',
        'missing_session',
        'data.session_id is missing: Medusa sets it',
      );
    }
    const data = input.data ?? {};
    const amount = decimalString(input.amount, 'amount');
    const currency = this.currency(input.currency_code);
    const email = text(input.context?.customer?.email) ?? text(data.email);
    if (!email || !EMAIL.test(email)) {
      throw new MerchantPaymentsError(
        'invalid_data',
        'missing_email',
        "The customer's e-mail address is needed: set it on the cart before choosing this payment",
      );
    }
    const senderCurrency = text(data.sender_currency)?.toUpperCase();
    if (senderCurrency !== undefined && !CURRENCY.test(senderCurrency)) {
      throw new MerchantPaymentsError(
        'invalid_data',
        'invalid_sender_currency',
        'data.sender_currency is not a currency',
      );
    }
    for (let next = revision; next < revision + MAX_NEW_REVISIONS; next += 1) {
      const foreignId = invoiceForeignId(sessionId, next);
      const body: CheckoutBody = {
        foreign_id: foreignId,
        amount,
        currency,
        title: this.options.title,
        email,
        url_success: this.options.url_success,
        url_failed: this.options.url_failed,
        metadata: { [SESSION_KEY]: sessionId, [REVISION_KEY]: String(next) },
        ...(senderCurrency ? { sender_currency: senderCurrency } : {}),
      };
      const answer = await this.plugin.send(() => this.plugin.storefront.POST('/checkout', { body }));
      if (answer.status === 200 || answer.status === 201) {
        const view = answer.data as CheckoutView;
        return {
          session_id: sessionId,
          foreign_id: foreignId,
          revision: next,
          amount,
          currency,
          status: view.status,
          invoice_url: `${this.options.api_url}/public/invoices/${encodeURIComponent(foreignId)}`,
          client_secret: view.client_secret ?? null,
          payment_url: view.payment_url,
        };
      }
      if (answer.status !== 409 || answer.error?.code !== 'foreign_id_conflict') {
        throw refused(`Checking out ${foreignId}`, answer);
      }
      await closeInvoice(this.plugin, foreignId);
    }
    throw new MerchantPaymentsError(
      'unexpected_state',
      'foreign_id_conflict',
      `Session ${sessionId}'s invoices ${revision} to ${revision + MAX_NEW_REVISIONS - 1} all hold other amounts`,
    );
  }

  private async closeSession(data: Record<string, unknown>): Promise<Record<string, unknown>> {
    const session = this.session(data, false);
    if (!session) return data;
    const view = await closeInvoice(this.plugin, session.foreign_id);
    return view ? { ...data, status: view.status } : data;
  }
}
