// Found by the soak (issue 31): a DynamoDB that throttles, past the SDK's retries, answered the unexpected 500
// ("internal_error"); a caller is now told to retry: 503 temporarily_unavailable with Retry-After.
import { createServer } from 'node:http';
import { listen, type Listening } from '../../local/listen';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';

let harness: Harness;
let throttling: Listening;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput();
  throttling = await listen(
    createServer((request, response) => {
      request.resume();
      request.on('end', () =>
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
            message: 'Rate of requests exceeds the allowed throughput.',
          }),
        ),
      );
    }),
  );
  harness = await startHarness({ env: { AWS_ENDPOINT_URL_DYNAMODB: throttling.url } });
});
afterAll(async () => {
  await harness.close();
  await throttling.close();
  output.restore();
});

test.each([
  ['a poll', 'GET', '/invoices/busy-1', 'storefront', undefined],
  ['a checkout', 'POST', '/checkout', 'storefront', checkoutBody('busy-2')],
  ['a cancel', 'POST', '/invoices/busy-3/cancel', 'admin', undefined],
] as const)(
  '%s against a throttling table: 503 to retry, never a 500',
  async (_what, method, path, token, body) => {
    const answer = await harness.api(method, path, { token, body });

    expect({ status: answer.status, code: answer.body.error?.code }).toEqual({
      status: 503,
      code: 'temporarily_unavailable',
    });
    expect(answer.headers.get('retry-after')).toBe('1');
  },
);
