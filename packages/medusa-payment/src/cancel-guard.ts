// A Medusa API middleware for POST /admin/orders/:id/cancel. Medusa's cancel asks no provider for a payment still
// confirming, and counts a refund it never asks for once paid; the guard refuses both before Medusa's workflow runs.
import Decimal from 'decimal.js';
import { pluginClients, type InvoiceView, type PluginClients } from './client';
import { MerchantPaymentsError } from './errors';
import { closeInvoice, readInvoice } from './invoices';
import { resolveOptions, type MerchantPaymentsOptions } from './options';
import { MerchantPaymentsProvider } from './provider';

/** Medusa's `query`, as far as the guard uses it: one graph read. */
export interface GuardQuery {
  graph(config: {
    entity: string;
    fields: string[];
    filters: Record<string, unknown>;
  }): Promise<{ data: unknown[] }>;
}

/** The parts of Medusa's request, response and next function the guard uses, written out to import nothing of Medusa. */
export interface GuardRequest {
  params: Record<string, string | undefined>;
  scope: { resolve<T>(key: string): T };
}
export interface GuardResponse {
  status(code: number): { json(body: unknown): unknown };
}
export type GuardNext = (error?: unknown) => void;

export interface OrderCancelGuardOptions extends MerchantPaymentsOptions {
  /** The provider's `id` in medusa-config; when absent, every session of a merchant-payments provider counts. */
  id?: string;
}

interface OrderSessions {
  status?: string;
  payment_collections?: Array<{
    payment_sessions?: Array<{ provider_id?: string; data?: Record<string, unknown> | null }> | null;
  } | null> | null;
}

/** What Medusa's error handler writes, so the admin shows the message as it shows Medusa's own. */
interface Refusal {
  status: 409 | 503;
  type: 'not_allowed' | 'unexpected_state';
  message: string;
}

const PROVIDER_PREFIX = `pp_${MerchantPaymentsProvider.identifier}_`;
const OPEN: ReadonlySet<InvoiceView['status']> = new Set(['creating', 'awaiting_payment']);

const notAllowed = (message: string): Refusal => ({ status: 409, type: 'not_allowed', message });

/** The guard for `POST /admin/orders/:id/cancel`; mount it with the provider's own options. */
export function orderCancelGuard(options: OrderCancelGuardOptions) {
  const { id, ...providerOptions } = options;
  const plugin = pluginClients(resolveOptions(providerOptions));
  const ours = (providerId: unknown) =>
    typeof providerId === 'string' &&
    (id === undefined ? providerId.startsWith(PROVIDER_PREFIX) : providerId === `${PROVIDER_PREFIX}${id}`);

  return async (req: GuardRequest, res: GuardResponse, next: GuardNext): Promise<void> => {
    let refusal: Refusal | undefined;
    try {
      const foreignIds = await invoicesOfOrder(req, ours);
      refusal = await guard(plugin, foreignIds);
    } catch (error) {
      next(error);
      return;
    }
    if (!refusal) {
      next();
      return;
    }
    res.status(refusal.status).json({ type: refusal.type, message: refusal.message });
  };
}

/** The foreign_ids of the order's sessions with our provider; none for an order already cancelled or not found. */
async function invoicesOfOrder(req: GuardRequest, ours: (providerId: unknown) => boolean): Promise<string[]> {
  const orderId = req.params.id;
  if (!orderId) return [];
  const query = req.scope.resolve<GuardQuery>('query');
  const { data } = await query.graph({
    entity: 'order',
    fields: [
      'id',
      'status',
      'payment_collections.payment_sessions.provider_id',
      'payment_collections.payment_sessions.data',
    ],
    filters: { id: orderId },
  });
  const order = data[0] as OrderSessions | undefined;
  if (!order || order.status === 'canceled') return [];
  const foreignIds = (order.payment_collections ?? [])
    .flatMap((collection) => collection?.payment_sessions ?? [])
    .filter((session) => ours(session.provider_id))
    .map((session) => session.data?.foreign_id)
    .filter((foreignId): foreignId is string => typeof foreignId === 'string');
  return [...new Set(foreignIds)];
}

/**
 * Reads every invoice first, so that nothing is cancelled when one of them refuses; then cancels those still open.
 * Undefined lets Medusa's cancel go on.
 */
async function guard(plugin: PluginClients, foreignIds: string[]): Promise<Refusal | undefined> {
  const open: string[] = [];
  for (const foreignId of foreignIds) {
    const read = await asked(foreignId, () => readInvoice(plugin, foreignId));
    if ('refusal' in read) return read.refusal;
    const refusal = refusalFor(read.view);
    if (refusal) return refusal;
    if (OPEN.has(read.view.status)) open.push(foreignId);
  }
  for (const foreignId of open) {
    const closed = await asked(foreignId, () => closeInvoice(plugin, foreignId));
    if ('refusal' in closed) return closed.refusal;
  }
  return undefined;
}

/** Why an invoice keeps its order from being cancelled, if it does. */
function refusalFor(view: InvoiceView): Refusal | undefined {
  if (view.status === 'confirming') return confirming(view.foreign_id);
  if (view.status !== 'paid') return undefined;
  const left = view.refundable;
  // Paid but not yet credited: the refund is not possible yet, and the money is the customer's all the same.
  if (left === null && view.not_refundable_reason !== 'not_credited') return undefined;
  if (left !== null && new Decimal(left.amount).lte(0)) return undefined;
  const what = left === null ? 'not refunded' : `not refunded: ${left.amount} ${left.currency} is left`;
  return notAllowed(
    `The customer paid invoice ${view.foreign_id}, and it is ${what}. Refund the payment first, then cancel the order.`,
  );
}

const confirming = (foreignId: string) =>
  notAllowed(
    `The customer's payment of invoice ${foreignId} is confirming, so the order cannot be cancelled yet. Wait until it is paid, refund the payment, then cancel the order.`,
  );

/** One question to the plugin; its refusals and its silence become the admin's clear error, never a cancel. */
async function asked<T>(
  foreignId: string,
  question: () => Promise<T>,
): Promise<{ view: T } | { refusal: Refusal }> {
  try {
    return { view: await question() };
  } catch (error) {
    if (!(error instanceof MerchantPaymentsError)) throw error;
    if (error.code === 'payment_in_progress') return { refusal: confirming(foreignId) };
    // The provider made this invoice: a plugin that does not know it is most likely another store's.
    if (error.code === 'not_found') {
      return {
        refusal: notAllowed(
          `The order was not cancelled: the payments plugin does not know invoice ${foreignId}. Give the guard the options of the provider that made it.`,
        ),
      };
    }
    if (error.code === 'invoice_paid') {
      return {
        refusal: notAllowed(
          `The customer paid invoice ${foreignId}. Refund the payment first, then cancel the order.`,
        ),
      };
    }
    return {
      refusal: {
        status: 503,
        type: 'unexpected_state',
        message: `The order was not cancelled: the payments plugin gave no usable answer about invoice ${foreignId}. ${error.message}`,
      },
    };
  }
}
