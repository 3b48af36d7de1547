// Rule 5 for DynamoDB: a store endpoint that never answers gets our JSON error in time, not the gateway's bare 500.
import { startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { startSilentEndpoint, type SilentEndpoint } from '../support/silent-endpoint';

let hung: SilentEndpoint;
let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // every failed call logs an error; keep the run quiet
  hung = await startSilentEndpoint();
  harness = await startHarness({ env: { AWS_ENDPOINT_URL_DYNAMODB: hung.url } });
});
afterAll(async () => {
  await hung.close(); // first: a call still waiting on it ends, so the stack can close
  await harness.close();
  output.restore();
});

test('a hung DynamoDB: reading an invoice answers a JSON error within the function timeout', async () => {
  const answers = await Promise.all(
    ['hung-store-1', 'hung-store-2'].map((id) =>
      harness.api('GET', `/invoices/${id}`, { token: 'storefront' }),
    ),
  );

  for (const answer of answers) {
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.body).toMatchObject({ error: { code: expect.any(String) } });
  }
}, 40_000);
