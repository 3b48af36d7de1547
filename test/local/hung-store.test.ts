// Rule 5 for DynamoDB: a store endpoint that never answers gets our JSON error in time, not the gateway's bare 500.
import { expectJsonErrors, stackWithHungEndpoint } from '../support/silent-endpoint';

const stack = stackWithHungEndpoint('AWS_ENDPOINT_URL_DYNAMODB');

test('a hung DynamoDB: reading an invoice answers a JSON error within the function timeout', async () => {
  const harness = stack();
  const answers = await Promise.all(
    ['hung-store-1', 'hung-store-2'].map((id) =>
      harness.api('GET', `/invoices/${id}`, { token: 'storefront' }),
    ),
  );

  expectJsonErrors(answers);
}, 40_000);
