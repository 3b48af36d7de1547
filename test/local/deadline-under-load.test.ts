// Issue 40: a refund answered past its function's timeout on a busy machine. Each step of a refund that waits (a
// duplicate's wait for the claim holder, a call to DynamoDB) must end within the invocation's time, so that however
// slow they are the route answers its own JSON, never the platform's timeout. The functions run here with a short
// timeout: a step that waits without looking at the time left overruns it, and the gateway answers its bare 500.
import { faultsInFront, type FaultProxy } from '../../soak/fault-proxy';
import { TABLE_SCHEMA } from '../../store/schema';
import { expectDocumented } from '../support/contract';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { waitFor } from '../support/wait';

/** Shorter than a duplicate's wait for a claim (CLAIM_WAIT_MS), and than four hung attempts at DynamoDB. */
const FUNCTION_TIMEOUT_MS = 4_500;
const ADDRESS = 'bc1qdeadlineaddress00000000000000000000';

let harness: Harness;
let output: CapturedOutput;
let storeFaults: FaultProxy;
/** Which DynamoDB requests are left hanging, by the operation (`x-amz-target`) and the request's JSON. */
let hangs: (operation: string, request: string) => boolean = () => false;

beforeAll(async () => {
  output = captureOutput(); // the cut-off calls log errors; keep the run quiet
  harness = await startHarness({
    apiTimeoutMs: FUNCTION_TIMEOUT_MS,
    // The deployed request timeout, and a lease a little longer than a function's time, which a retry outlasts.
    env: { AWS_REQUEST_TIMEOUT_MS: '2000', CLAIM_LEASE_MS: String(FUNCTION_TIMEOUT_MS + 500) },
  });
  storeFaults = faultsInFront(harness.stack.dynamo.server, {
    decide: ({ headers, body }) => {
      const operation = String(headers['x-amz-target']).replace('DynamoDB_20120810.', '');
      return { fault: hangs(operation, body.toString('utf8')) ? 'hang' : 'pass' };
    },
  });
}, 60_000);
afterAll(async () => {
  await storeFaults?.close();
  await harness?.close();
  output?.restore();
});

/** A request about this record's item: `REFUND#<id>` or `INVOICE#<id>` (the default store's keys). */
const about = (request: string, key: string) =>
  request.includes(`"${TABLE_SCHEMA.partitionKey}":{"S":"${key}"}`);

interface Answer {
  status: number;
  /** The JSON answered, read field by field. */
  body: any;
}

/** One call through the gateway, whatever it answers: the gateway's bare 500 after a timeout is what is looked for. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${harness.stack.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${harness.stack.adminToken}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // the text as it came
  }
  return { status: response.status, body: parsed } as Answer;
}

/** The function's own answer: our JSON error or view, as openapi.json documents it, not a platform's timeout. */
function expectAnsweredInTime(method: string, path: string, answer: Answer, status: number, code?: string) {
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({ status, code });
  expectDocumented(method, `${harness.stack.url}${path}`, answer.status, answer.body);
}

/** An order paid in full; asked again after a 5xx, as a shop would, since the machine may be busy. */
async function paidOrder(foreignId: string): Promise<void> {
  const created = await waitFor(
    () => call('POST', '/checkout', checkoutBody(foreignId, { timer: true })),
    ({ status }) => status < 500,
    30_000,
  );
  expect(created.status).toBe(201);
  expect((await harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' })).status).toBe(200);
  const paid = await waitFor(
    () => call('GET', `/invoices/${foreignId}`),
    ({ body }) => body.status === 'paid' && body.net_amount !== null,
    30_000,
  );
  expect(paid.body.status).toBe('paid');
}

test("a refund stalled on DynamoDB and its duplicate, waiting on the claim, both answer within the function's time", async () => {
  await paidOrder('dl-claim');
  const path = '/invoices/dl-claim/refunds';
  const body = { foreign_id: 'dl-claim-r1', address: ADDRESS };
  // Once the refund is claimed, its reads of the order never come back: the claim's lease holds meanwhile.
  let stalled!: () => void;
  const claimHeld = new Promise<void>((resolve) => (stalled = resolve));
  let claimed = false;
  hangs = (operation, request) => {
    claimed ||= operation === 'PutItem' && about(request, 'REFUND#dl-claim-r1');
    const stall = claimed && operation === 'GetItem' && about(request, 'INVOICE#dl-claim');
    if (stall) stalled();
    return stall;
  };

  const first = call('POST', path, body);
  await claimHeld;
  // The same request again waits for the holder's answer, but only while its own invocation has time to answer.
  const duplicate = await call('POST', path, body);

  expectAnsweredInTime('POST', path, duplicate, 409, 'in_progress');
  expectAnsweredInTime('POST', path, await first, 503, 'temporarily_unavailable');
  hangs = () => false;
  await storeFaults.close(); // the hung requests' connections dropped
}, 60_000);

test('DynamoDB hung just as a sent refund is written: a JSON 503 within the time, and the retry adopts the withdrawal', async () => {
  await paidOrder('dl-hung');
  const path = '/invoices/dl-hung/refunds';
  const body = { foreign_id: 'dl-hung-r1', address: ADDRESS };
  // From the write of the service's answer on, DynamoDB never answers again: that write, the release, anything.
  let hung = false;
  hangs = (operation, request) =>
    (hung ||=
      operation === 'UpdateItem' &&
      about(request, 'REFUND#dl-hung-r1') &&
      request.includes(String.raw`\"phase\":\"sent\"`));

  // A busy machine may leave too little time to send the withdrawal at all (a 504, nothing sent): asked again.
  const cut = await waitFor(
    () => call('POST', path, body),
    () => hung,
    30_000,
  );

  expect(hung).toBe(true);
  expectAnsweredInTime('POST', path, cut, 503, 'temporarily_unavailable');

  // DynamoDB answers again: once the lease is out, the same request finds the withdrawal the service made. Asked
  // again after a 409 `in_progress` or a 5xx, as a shop would.
  hangs = () => false;
  await storeFaults.close(); // the hung requests' connections dropped
  const retried = await waitFor(
    () => call('POST', path, body),
    ({ status, body: answer }) => status < 500 && answer.error?.code !== 'in_progress',
    30_000,
  );
  expect(retried.status).toBe(201);
  expect(retried.body).toMatchObject({ foreign_id: 'dl-hung-r1', status: 'processing' });
  const sent = await harness.upstreamRequests('/v2/crypto/withdrawal_instant_exchange');
  const ours = sent.filter((request) => JSON.parse(request.body).foreign_id === 'dl-hung-r1');
  expect(ours).toHaveLength(1);
  expect(retried.body.transaction_id).toEqual(expect.any(Number));
}, 90_000);
