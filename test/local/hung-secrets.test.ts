// Rule 5 for Secrets Manager: an endpoint that never answers gets our JSON error in time, not the gateway's bare
// 500, whether the route reads the tokens or the processing keys.
import { invoiceCallbackBody, signBody } from '../support/callbacks';
import { startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { startSilentEndpoint, type SilentEndpoint } from '../support/silent-endpoint';

let hung: SilentEndpoint;
let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // every failed call logs an error; keep the run quiet
  hung = await startSilentEndpoint();
  harness = await startHarness({ env: { AWS_ENDPOINT_URL_SECRETS_MANAGER: hung.url } });
});
afterAll(async () => {
  await hung.close(); // first: a call still waiting on it ends, so the stack can close
  await harness.close();
  output.restore();
});

test('a hung Secrets Manager: a bearer route and a route needing the keys answer a JSON error in time', async () => {
  const callback = invoiceCallbackBody('hung-secrets', 'pending');
  const { apiKey, secretKey } = harness.stack.sandbox!;
  const answers = await Promise.all([
    harness.api('GET', '/invoices/hung-secrets', { token: 'storefront' }),
    harness.api('POST', '/callbacks', {
      body: callback,
      headers: { 'x-processing-key': apiKey, 'x-processing-signature': signBody(secretKey, callback) },
    }),
  ]);

  for (const answer of answers) {
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.body).toMatchObject({ error: { code: expect.any(String) } });
  }
}, 40_000);
