import type { BaselineIo } from './baseline-io';
import type { PluginUnderTest } from './plugin';
import type { Call } from './timing';
import { invocation, type ApiCall } from './lambda-events';

/** A storefront checkout's fields as a shop sends them; the invoice gets an address and a quote in BTC. */
export function checkoutFields(foreignId: string) {
  return {
    foreign_id: foreignId,
    amount: '25.50',
    currency: 'EUR',
    sender_currency: 'BTC',
    timer: true,
    title: `Order ${foreignId}`,
    email: 'customer@example.com',
    url_success: 'https://shop.example/paid',
    url_failed: 'https://shop.example/failed',
  };
}

/** The same checkout as its JSON body. */
export function checkoutRequest(foreignId: string): string {
  return JSON.stringify(checkoutFields(foreignId));
}

/** Unique foreign_ids: every measured checkout creates a new invoice. */
export function idSequence(prefix: string): () => string {
  let next = 0;
  return () => `${prefix}-${++next}`;
}

/** The storefront's checkout as API Gateway hands it to a function. */
export function checkoutCall(
  plugin: PluginUnderTest,
  foreignId: string,
  body = checkoutRequest(foreignId),
): ApiCall {
  const token = plugin.backends.storefrontToken;
  return { method: 'POST', route: '/checkout', path: '/checkout', token, body };
}

/** The storefront's poll as API Gateway hands it to a function. */
export function pollCall(plugin: PluginUnderTest, foreignId: string): ApiCall {
  return {
    method: 'GET',
    route: '/invoices/{foreign_id}',
    path: `/invoices/${foreignId}`,
    token: plugin.backends.storefrontToken,
    pathParameters: { foreign_id: foreignId },
  };
}

/** A checkout by the handler, readied: event built, not yet invoked. */
export function checkoutByHandler(plugin: PluginUnderTest, foreignId: string): () => Promise<unknown> {
  return invocation(plugin.checkout, 'checkout', checkoutCall(plugin, foreignId), 201);
}

/** A poll by the handler, readied. */
export function pollByHandler(plugin: PluginUnderTest, foreignId: string): () => Promise<unknown> {
  return invocation(plugin.getInvoice, 'get-invoice', pollCall(plugin, foreignId), 200);
}

/** A poll by hand, readied: the yardstick's one consistent GetItem of the invoice's item. */
export function pollByHand(
  baseline: BaselineIo,
  foreignId: string,
  shape: 'least' | 'sdkDefaults' = 'least',
): Call {
  return () => () => baseline.poll(foreignId, shape);
}

/** The create request the plugin sent for `sampleId`, from the sandbox's log, as a template for other ids. */
export async function createBodyTemplate(
  plugin: PluginUnderTest,
  sampleId: string,
): Promise<(foreignId: string) => string> {
  const url = `${plugin.backends.sandbox.url}/_sandbox/requests?path=${encodeURIComponent('/v2/invoices/create')}`;
  const { requests } = (await (await fetch(url)).json()) as { requests: Array<{ body: string }> };
  const marker = `"foreign_id":"${sampleId}"`;
  const sample = requests.find((request) => request.body.includes(marker));
  if (!sample) throw new Error(`The sandbox logged no create for ${sampleId}`);
  return (foreignId) => sample.body.replace(marker, `"foreign_id":"${foreignId}"`);
}
