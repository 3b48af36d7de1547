// Reading and closing one invoice at the plugin: the provider and the order-cancel guard ask the same questions.
import { refused, type InvoiceView, type PluginClients } from './client';
import { MerchantPaymentsError } from './errors';

export async function readInvoice(plugin: PluginClients, foreignId: string): Promise<InvoiceView> {
  const answer = await plugin.send(() =>
    plugin.storefront.GET('/invoices/{foreign_id}', { params: { path: { foreign_id: foreignId } } }),
  );
  if (answer.status !== 200) throw refused(`Reading ${foreignId}`, answer);
  return answer.data as InvoiceView;
}

/**
 * Makes sure an invoice can take no payment: cancelled, or ended without one. Refuses, with a clear error, while
 * the customer is paying it or once it is paid. Undefined when the plugin has no such invoice.
 */
export async function closeInvoice(
  plugin: PluginClients,
  foreignId: string,
): Promise<InvoiceView | undefined> {
  const answer = await plugin.send(() =>
    plugin.admin.POST('/invoices/{foreign_id}/cancel', { params: { path: { foreign_id: foreignId } } }),
  );
  if (answer.status === 200) return answer.data as InvoiceView;
  if (answer.status === 404) return undefined;
  const code = answer.error?.code;
  if (answer.status !== 409) throw refused(`Cancelling ${foreignId}`, answer);
  if (code === 'payment_confirming') {
    throw new MerchantPaymentsError(
      'not_allowed',
      'payment_in_progress',
      `The customer is paying invoice ${foreignId}: it cannot be cancelled or replaced until that payment ends`,
    );
  }
  const view = code === 'invalid_invoice_state' ? await readInvoice(plugin, foreignId) : undefined;
  if (code === 'invoice_paid' || view?.status === 'paid') {
    throw new MerchantPaymentsError(
      'not_allowed',
      'invoice_paid',
      `Invoice ${foreignId} is paid: it cannot be cancelled; refund it instead`,
    );
  }
  if (view?.final) return view;
  if (view?.status === 'creating') {
    throw new MerchantPaymentsError(
      'unexpected_state',
      'invoice_creating',
      `Invoice ${foreignId} is still being created (an answer was lost): try again in a moment`,
    );
  }
  throw refused(`Cancelling ${foreignId}`, answer);
}
