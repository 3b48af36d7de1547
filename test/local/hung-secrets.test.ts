// Rule 5 for Secrets Manager: an endpoint that never answers gets our JSON error in time, not the gateway's bare
// 500, whether the route reads the tokens or the processing keys.
import { invoiceCallbackBody, signBody } from '../support/callbacks';
import { expectJsonErrors, stackWithHungEndpoint } from '../support/silent-endpoint';

const stack = stackWithHungEndpoint('AWS_ENDPOINT_URL_SECRETS_MANAGER');

test('a hung Secrets Manager: a bearer route and a route needing the keys answer a JSON error in time', async () => {
  const harness = stack();
  const callback = invoiceCallbackBody('hung-secrets', 'pending');
  const { apiKey, secretKey } = harness.stack.sandbox!;
  const answers = await Promise.all([
    harness.api('GET', '/invoices/hung-secrets', { token: 'storefront' }),
    harness.api('POST', '/callbacks', {
      body: callback,
      headers: { 'x-processing-key': apiKey, 'x-processing-signature': signBody(secretKey, callback) },
    }),
  ]);

  expectJsonErrors(answers);
}, 40_000);
