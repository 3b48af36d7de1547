// The plugin's clients for the provider, from the shared typed client (src/plugin-client.ts, a copy that `npm run
// client` makes of client/plugin-client.ts), with its failures as the errors Medusa reads.
import type { Client } from 'openapi-fetch';
import type { paths } from './api';
import { MerchantPaymentsError } from './errors';
import type { ResolvedOptions } from './options';
import { createPluginClient, PluginClientError, type Answered, type Sent } from './plugin-client';

export type { CheckoutBody, CheckoutView, InvoiceView, RefundView, WebhookEvent } from './plugin-client';

export interface PluginClients {
  storefront: Client<paths>;
  admin: Client<paths>;
  /** Sends one request until it is answered, `max_attempts` at most (see `send` in plugin-client.ts). */
  send: <T>(request: () => Promise<Sent<T>>) => Promise<Answered<T>>;
}

export function pluginClients(options: ResolvedOptions): PluginClients {
  const client = (token: string) =>
    createPluginClient({
      apiUrl: options.api_url,
      token,
      timeoutMs: options.request_timeout_ms,
      maxAttempts: options.max_attempts,
    });
  const storefront = client(options.storefront_token);
  // Every request the provider sends is safe to send again, and retrying does not depend on the token.
  const send = async <T>(request: () => Promise<Sent<T>>): Promise<Answered<T>> => {
    try {
      return await storefront.send(request);
    } catch (error) {
      if (!(error instanceof PluginClientError)) throw error;
      throw new MerchantPaymentsError('unexpected_state', error.code, error.message);
    }
  };
  return { storefront, admin: client(options.admin_token), send };
}

/** An error for an answer the provider did not expect: the plugin's code and message, never a token. */
export function refused(what: string, answer: Answered<unknown>): MerchantPaymentsError {
  const code = answer.error?.code ?? `http_${answer.status}`;
  const fields = answer.error?.fields
    ? ` (${Object.entries(answer.error.fields)
        .map(([field, why]) => `${field}: ${why}`)
        .join('; ')})`
    : '';
  const type =
    answer.status === 400 || answer.status === 422
      ? 'invalid_data'
      : answer.status === 409
        ? 'not_allowed'
        : 'unexpected_state';
  return new MerchantPaymentsError(
    type,
    code,
    `${what}: the payments plugin answered ${answer.status} ${code}: ${answer.error?.message ?? 'no message'}${fields}`,
  );
}
