import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { API_FUNCTION_TIMEOUT_SECONDS } from '../../lib/routes';
import { lambdaContext } from '../../local/lambda-context';
import { invoiceCallbackBody, postCallback, signBody, signedHeaders } from '../support/callbacks';
import { checkoutMade, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';
import { waitFor } from '../support/wait';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // refused callbacks log warnings; keep the run quiet
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
  output.restore();
});
// Only the callbacks a test sends itself reach the plugin, unless it turns the sandbox's back on.
beforeEach(() => harness.control('POST', '/callbacks', { url: null, duplicate: false }));

const pendingInvoice = (foreignId: string) => checkoutMade(harness, foreignId);

const poll = async (foreignId: string) =>
  (await harness.api('GET', `/invoices/${foreignId}`, { token: 'storefront' })).body;
/** The view without what is computed at read time. */
const stored = ({ seconds_left: _secondsLeft, ...view }: Record<string, unknown>) => view;
const statuses = (view: { history: Array<{ service_status: string }> }) =>
  view.history.map((change) => change.service_status);
/** The order's item as stored: a delivery that writes nothing leaves it the same, version and all. */
const itemOf = async (foreignId: string) =>
  (await scanTable(harness.stack)).find((item) => item.pk.S === `INVOICE#${foreignId}`);
const tableText = async () =>
  JSON.stringify((await scanTable(harness.stack)).map((item) => JSON.stringify(item)).sort());

describe('refused deliveries change nothing', () => {
  const body = invoiceCallbackBody('cb-refused', 'confirmed');
  const sandbox = () => harness.stack.sandbox!;
  const cases: Array<[string, () => Record<string, string>]> = [
    [
      'a signature made with another secret',
      () => ({
        'X-Processing-Key': sandbox().apiKey,
        'X-Processing-Signature': signBody('not-the-secret', body),
      }),
    ],
    [
      'a signature over re-serialized JSON',
      () => ({
        'X-Processing-Key': sandbox().apiKey,
        'X-Processing-Signature': signBody(sandbox().secretKey, JSON.stringify(JSON.parse(body), null, 2)),
      }),
    ],
    [
      'a wrong key header',
      () => ({
        'X-Processing-Key': 'another-key',
        'X-Processing-Signature': signBody(sandbox().secretKey, body),
      }),
    ],
    [
      'a signature that is not hex',
      () => ({ 'X-Processing-Key': sandbox().apiKey, 'X-Processing-Signature': 'zz'.repeat(64) }),
    ],
    [
      'a valid signature followed by non-hex characters',
      () => ({
        'X-Processing-Key': sandbox().apiKey,
        'X-Processing-Signature': `${signBody(sandbox().secretKey, body)}zz`,
      }),
    ],
    [
      'a valid signature followed by a space and more hex',
      () => ({
        'X-Processing-Key': sandbox().apiKey,
        'X-Processing-Signature': `${signBody(sandbox().secretKey, body)} 00`,
      }),
    ],
    [
      'a truncated signature',
      () => ({
        'X-Processing-Key': sandbox().apiKey,
        'X-Processing-Signature': signBody(sandbox().secretKey, body).slice(0, 64),
      }),
    ],
    ['no key header', () => ({ 'X-Processing-Signature': signBody(sandbox().secretKey, body) })],
    ['no signature header', () => ({ 'X-Processing-Key': sandbox().apiKey })],
    ['no headers at all', () => ({})],
  ];

  beforeAll(() => pendingInvoice('cb-refused'));

  test.each(cases)('%s: 403 and the invoice and table are unchanged', async (_name, headers) => {
    const before = await tableText();

    const answer = await postCallback(harness, body, headers());

    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('invalid_signature');
    expect(await tableText()).toBe(before);
    expect(await poll('cb-refused')).toMatchObject({
      status: 'awaiting_payment',
      history: [{ service_status: 'pending' }],
    });
  });
});

test('a replayed delivery has no second effect', async () => {
  await pendingInvoice('cb-replay');
  const body = invoiceCallbackBody('cb-replay', 'processing');

  const first = await postCallback(harness, body, signedHeaders(harness, body));
  const afterFirst = await poll('cb-replay');
  const itemAfterFirst = await itemOf('cb-replay');
  const replay = await postCallback(harness, body, signedHeaders(harness, body));

  expect(first.status).toBe(200);
  expect(first.body.outcome).toBe('applied');
  expect(replay.status).toBe(200);
  expect(replay.body.outcome).toBe('duplicate');
  expect(stored(await poll('cb-replay'))).toEqual(stored(afterFirst));
  expect(statuses(afterFirst)).toEqual(['pending', 'processing']);
  expect(itemAfterFirst?.version).toBeDefined();
  expect(await itemOf('cb-replay')).toEqual(itemAfterFirst);
});

test('concurrent copies of one delivery are applied once', async () => {
  await pendingInvoice('cb-replay-race');
  const body = invoiceCallbackBody('cb-replay-race', 'confirmed');
  const version = Number((await itemOf('cb-replay-race'))?.version.N);

  const answers = await Promise.all(
    Array.from({ length: 10 }, () => postCallback(harness, body, signedHeaders(harness, body))),
  );

  expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
  expect(answers.filter((answer) => answer.body.outcome === 'applied')).toHaveLength(1);
  expect(answers.filter((answer) => answer.body.outcome === 'duplicate')).toHaveLength(9);
  expect(statuses(await poll('cb-replay-race'))).toEqual(['pending', 'confirmed']);
  // One write: the copies that lost its compare-and-set found the news there and wrote nothing.
  expect(Number((await itemOf('cb-replay-race'))?.version.N)).toBe(version + 1);
});

test('out of order: confirmed, then processing, stays confirmed; a later failed does not undo it', async () => {
  await pendingInvoice('cb-order');
  const confirmed = invoiceCallbackBody('cb-order', 'confirmed');
  const processing = invoiceCallbackBody('cb-order', 'processing');
  const failed = invoiceCallbackBody('cb-order', 'failed', { error: 'Timer expired. User not paid.' });

  expect((await postCallback(harness, confirmed, signedHeaders(harness, confirmed))).status).toBe(200);
  const afterConfirmed = await poll('cb-order');
  expect((await postCallback(harness, processing, signedHeaders(harness, processing))).status).toBe(200);
  expect((await postCallback(harness, failed, signedHeaders(harness, failed))).status).toBe(200);

  const view = await poll('cb-order');
  expect(view.status).toBe('paid');
  expect(statuses(view)).toEqual(['pending', 'confirmed']);
  expect(stored(view)).toEqual(stored(afterConfirmed));
});

test.each(['1e500000', '1e9000000000000000'])(
  'a signed callback with the amount %s is ignored without expanding it, and changes nothing',
  async (amount) => {
    const foreignId = `cb-huge-${amount.length}`;
    await pendingInvoice(foreignId);
    const body = invoiceCallbackBody(foreignId, 'confirmed').replace(
      '"amount":0.00046',
      `"amount":${amount}`,
    );
    const before = await tableText();

    const answer = await postCallback(harness, body, signedHeaders(harness, body));

    expect(answer.status).toBe(200);
    expect(answer.body.outcome).toBe('ignored');
    expect(await tableText()).toBe(before);
  },
);

test('out of order: of two partial payments, the earlier one arriving last does not take the paid amount back', async () => {
  await pendingInvoice('cb-partial-order');
  const partial = (amount: number, remaining: number) =>
    invoiceCallbackBody('cb-partial-order', 'pending', {
      currency_sent: { currency: 'BTC', amount, remaining_amount: remaining },
    });
  const later = partial(0.0003, 0.00016);
  const earlier = partial(0.0001, 0.00036);

  expect((await postCallback(harness, later, signedHeaders(harness, later))).body.outcome).toBe('applied');
  expect((await postCallback(harness, earlier, signedHeaders(harness, earlier))).body.outcome).toBe(
    'ignored',
  );

  const view = await poll('cb-partial-order');
  expect(view).toMatchObject({
    status: 'awaiting_payment',
    exception: 'paid_partial',
    pay_currency: 'BTC',
    paid_amount: '0.00030000',
    owed_amount: '0.00016000',
  });
});

test('a base64-encoded body (non-JSON content type through the gateway) is verified over its bytes and applied', async () => {
  await pendingInvoice('cb-base64');
  const body = invoiceCallbackBody('cb-base64', 'processing');

  const answer = await postCallback(harness, body, signedHeaders(harness, body), 'application/octet-stream');

  expect(answer.status).toBe(200);
  expect(answer.body.outcome).toBe('applied');
  expect(await poll('cb-base64')).toMatchObject({ status: 'confirming' });
});

test('header names in odd case are accepted', async () => {
  await pendingInvoice('cb-case');
  const body = invoiceCallbackBody('cb-case', 'processing');
  const headers = signedHeaders(harness, body, {
    key: 'X-PROCESSING-KEY',
    signature: 'x-Processing-SIGNATURE',
  });

  const answer = await postCallback(harness, body, headers, 'Application/JSON');

  expect(answer.status).toBe(200);
  expect(answer.body.outcome).toBe('applied');
  expect(await poll('cb-case')).toMatchObject({ status: 'confirming' });
});

test('header names in odd case reach the handler unchanged (a proxy that keeps the case) and are accepted', async () => {
  await pendingInvoice('cb-case-event');
  const body = invoiceCallbackBody('cb-case-event', 'confirmed');
  // The same module instance the gateway serves: the stack loaded it in this jest module registry.
  const { handler } = (await import('../../functions/callbacks')) as {
    handler: (
      event: APIGatewayProxyEventV2,
      context: Context,
    ) => Promise<{ statusCode: number; body: string }>;
  };
  const event = {
    version: '2.0',
    routeKey: 'POST /callbacks',
    rawPath: '/callbacks',
    rawQueryString: '',
    headers: {
      'Content-Type': 'application/json',
      ...signedHeaders(harness, body, { key: 'X-PROCESSING-KEY', signature: 'X-Processing-SIGNATURE' }),
    },
    body: Buffer.from(body).toString('base64'),
    isBase64Encoded: true,
    requestContext: { http: { method: 'POST', path: '/callbacks' } },
  } as unknown as APIGatewayProxyEventV2;

  const result = await handler(event, lambdaContext('callbacks', API_FUNCTION_TIMEOUT_SECONDS * 1000));

  expect(result.statusCode).toBe(200);
  expect(JSON.parse(result.body).outcome).toBe('applied');
  expect(await poll('cb-case-event')).toMatchObject({ status: 'paid' });
});

test('a callback for an unknown foreign_id answers 200 (a retry could not help) and writes no invoice', async () => {
  const body = invoiceCallbackBody('cb-nobody', 'confirmed');

  const answer = await postCallback(harness, body, signedHeaders(harness, body));

  expect(answer.status).toBe(200);
  expect((await harness.api('GET', '/invoices/cb-nobody', { token: 'storefront' })).status).toBe(404);
});

test("the sandbox's own deliveries, each sent twice, move the invoice forward once per status", async () => {
  await pendingInvoice('cb-sandbox-twice');
  await harness.control('POST', '/callbacks', { url: `${harness.stack.url}/callbacks`, duplicate: true });

  await harness.control('POST', '/invoices/cb-sandbox-twice/pay', { kind: 'full' });
  const view = await waitFor(
    () => poll('cb-sandbox-twice'),
    (current) => current.status === 'paid',
  );
  const deliveries = await waitFor(
    async () => (await harness.control('GET', '/callbacks')).body.deliveries as Array<{ status: number }>,
    (list) => list.length >= 4,
  );

  expect(deliveries.map((delivery) => delivery.status)).toEqual([200, 200, 200, 200]);
  expect(statuses(view)).toEqual(['pending', 'processing', 'confirmed']);
  expect(view).toMatchObject({ pay_currency: 'BTC', paid_amount: expect.stringMatching(/^\d+\.\d{8}$/) });
});
