// What each of the plugin's invoice statuses means to Medusa: docs/medusa.md gives the reason for each line.
import type { PaymentActions, PaymentSessionStatus } from '@medusajs/types';
import type { InvoiceView } from './client';

export type InvoiceStatus = InvoiceView['status'];

/** The session's status for an invoice's status. */
export const SESSION_STATUS = {
  // Nothing paid yet: an order now would be an order without money, so cart completion must wait.
  creating: 'pending',
  awaiting_payment: 'pending',
  // Money is seen on chain and confirming: the order may exist while its payment is still being authorized.
  confirming: 'pending_authorization',
  // Paid and final: nothing is left to capture, the plugin has the money.
  paid: 'captured',
  // Ended without the money (the payment service returns an underpayment itself): a new session may start again.
  underpaid: 'canceled',
  expired: 'canceled',
  cancelled: 'canceled',
  // The payment service failed the invoice on its own: not the customer's choice, so an error.
  failed: 'error',
} as const satisfies Record<InvoiceStatus, PaymentSessionStatus>;

/** The webhook action for an invoice event, by the status the event's view shows. */
export const WEBHOOK_ACTION = {
  creating: 'pending',
  awaiting_payment: 'pending',
  confirming: 'pending_authorization',
  paid: 'captured',
  underpaid: 'canceled',
  expired: 'canceled',
  cancelled: 'canceled',
  failed: 'failed',
} as const satisfies Record<InvoiceStatus, PaymentActions>;

/** The invoice's metadata keys naming its session: a webhook finds the session by them. */
export const SESSION_KEY = 'medusa_session_id';
export const REVISION_KEY = 'medusa_revision';
