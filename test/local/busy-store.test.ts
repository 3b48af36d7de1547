// Found by the soak (issue 31): a DynamoDB that throttles, past the SDK's retries, answered the unexpected 500
// ("internal_error"); a caller is now told to retry: 503 temporarily_unavailable with Retry-After.
import { createServer } from 'node:http';
import { listen, type Listening } from '../../local/listen';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { LEASE_PARTITION_PREFIX } from '../../store/request-leases';
import { captureOutput, type CapturedOutput } from '../support/output';

let harness: Harness;
let throttling: Listening;
let output: CapturedOutput;
/** Once set, the writes of a request limit's leases get no answer at all; each lease's key is kept. */
let hangLeases = false;
const hungLeaseKeys: string[] = [];
const LEASE_KEY = new RegExp(`"(${LEASE_PARTITION_PREFIX}[^"]+)"`);
beforeAll(async () => {
  output = captureOutput();
  throttling = await listen(
    createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const leaseKey = LEASE_KEY.exec(Buffer.concat(chunks).toString())?.[1];
        if (hangLeases && leaseKey) {
          hungLeaseKeys.push(leaseKey);
          return;
        }
        response.writeHead(400, { 'content-type': 'application/x-amz-json-1.0' }).end(
          JSON.stringify({
            __type: 'com.amazonaws.dynamodb.v20120810#ThrottlingException',
            message: 'Rate of requests exceeds the allowed throughput.',
          }),
        );
      });
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

test('a lease the table never answers admits its request after a second, with one lease, not one each second', async () => {
  const givenUp = () => output.text().split('"message":"request limit not counted in time"').length - 1;
  const givenUpBefore = givenUp();
  hangLeases = true;
  try {
    // In a new second the store holds no slice of its limit: the request must lease one.
    await new Promise((resolve) => setTimeout(resolve, 1_000 - (Date.now() % 1_000) + 10));
    const asked = Math.floor(Date.now() / 1000);
    const answer = await harness.api('GET', '/invoices/busy-4', { token: 'storefront' });

    expect(answer.status).toBe(503);
    expect(givenUp()).toBe(givenUpBefore + 1);
    // The SDK may still be sending an earlier test's late lease again; those name seconds before this request.
    const secondOf = (key: string) => Number(key.split('#')[2]);
    const leased = hungLeaseKeys.filter((key) => secondOf(key) >= asked);
    // A write the SDK sends again is the same lease: it names the same second.
    expect(new Set(leased).size).toBe(1);
  } finally {
    hangLeases = false;
  }
});
