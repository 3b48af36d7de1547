import fc from 'fast-check';
import {
  DOT_SEGMENTS,
  badRequest,
  checkoutRules,
  invalidForeignId,
  refundRules,
  validForeignId,
  type BadRequest,
  type ValidBody,
} from '../support/bad-input';
import { checkoutBody, refundBody, startHarness, type Harness } from '../support/local-stack';
import { rawClient, type RawAnswer } from '../support/raw-http';
import { scanTable } from '../support/table';

const CASES_PER_ROUTE = 1000;
const UPSTREAM_WRITES = ['/v2/invoices/create', '/v2/crypto/withdrawal_instant_exchange', '/v2/invoices/*'];

let harness: Harness;
let client: ReturnType<typeof rawClient>;
let consoleError: jest.SpyInstance;

beforeAll(async () => {
  harness = await startHarness();
  client = rawClient(harness.stack.url);
  // Every refusal logs a line; thousands of them would only slow jest down. 5xx log through console.error.
  jest.spyOn(console, 'log').mockImplementation(() => undefined);
  consoleError = jest.spyOn(console, 'error').mockImplementation(() => undefined);
});
afterAll(async () => {
  jest.restoreAllMocks();
  await client.close();
  await harness.close();
});

const validCheckout: ValidBody = fc
  .tuple(
    validForeignId,
    fc.record(
      {
        timer: fc.boolean(),
        description: fc.string({ maxLength: 100 }),
        end_user_reference: fc.string({ minLength: 1, maxLength: 20 }),
        type: fc.constantFrom('fill_or_kill', 'good_until_expired'),
      },
      { requiredKeys: [] },
    ),
  )
  .map(([foreignId, optional]) => checkoutBody(foreignId, optional));

const validRefund: ValidBody = fc
  .tuple(validForeignId, fc.option(fc.string({ minLength: 1, maxLength: 20 }), { nil: undefined }))
  .map(([foreignId, reference]) =>
    refundBody(foreignId, reference === undefined ? {} : { end_user_reference: reference }),
  );

function post(path: string, token: string, request: BadRequest): Promise<RawAnswer> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  return client.send({ method: 'POST', path, headers, body: request.body });
}

function expectRefused(answer: RawAnswer, request: BadRequest): void {
  expect(answer.status).toBeLessThan(500);
  expect({ status: answer.status, code: answer.body?.error?.code }).toEqual({
    status: request.status,
    code: request.code,
  });
  if (!request.fields) return;
  const named = Object.keys(answer.body.error.fields ?? {}).sort();
  if (request.fields.exact) expect(named).toEqual(request.fields.named);
  else expect(named).toEqual(expect.arrayContaining(request.fields.named));
}

/** Records the matrix must never leave: any invoice or refund item, apart from the valid edge cases below. */
async function expectNothingWrittenOrSent(): Promise<void> {
  const items = await scanTable(harness.stack);
  const records = items.map((item) => item.pk.S ?? '').filter((pk) => /^(INVOICE|REFUND)#(?!edge-)/.test(pk));
  expect(records).toEqual([]);
  for (const path of UPSTREAM_WRITES) {
    const sent = (await harness.upstreamRequests(path)).filter((entry) => !entry.body.includes('edge-'));
    expect(sent.map((entry) => entry.path)).toEqual([]);
  }
}

describe.each([
  {
    route: 'POST /checkout',
    path: '/checkout',
    token: () => harness.stack.storefrontToken,
    valid: validCheckout,
    rules: checkoutRules,
  },
  {
    route: 'POST /refunds',
    path: '/refunds',
    token: () => harness.stack.adminToken,
    valid: validRefund,
    rules: refundRules,
  },
])('$route bad-input matrix', ({ path, token, valid, rules }) => {
  test(`${CASES_PER_ROUTE} generated bad requests over real HTTP: 400/415 naming the fields, no 5xx, nothing written or sent`, async () => {
    const errorsBefore = consoleError.mock.calls.length;
    await fc.assert(
      fc.asyncProperty(badRequest(valid, rules), async (request) => {
        expectRefused(await post(path, token(), request), request);
      }),
      { numRuns: CASES_PER_ROUTE },
    );
    expect(consoleError.mock.calls.length).toBe(errorsBefore);
    await expectNothingWrittenOrSent();
  });
});

describe('POST /invoices/{foreign_id}/cancel bad path ids', () => {
  // A URL resolves `.` and `..` before any route sees them (test/http/inputs.test.ts refuses them there).
  const badPathId = invalidForeignId.filter((id) => id !== '' && !DOT_SEGMENTS.includes(id));
  const bodies = fc.constantFrom<BadRequest['body']>(undefined, '{}');

  test(`${CASES_PER_ROUTE} generated bad ids over real HTTP: 400 naming foreign_id, nothing sent`, async () => {
    await fc.assert(
      fc.asyncProperty(badPathId, bodies, async (id, body) => {
        const answer = await client.send({
          method: 'POST',
          path: `/invoices/${encodeURIComponent(id)}/cancel`,
          headers: {
            authorization: `Bearer ${harness.stack.adminToken}`,
            'content-type': 'application/json',
          },
          body,
        });
        expect(answer.status).toBe(400);
        expect(answer.body.error).toMatchObject({ code: 'invalid_request' });
        expect(Object.keys(answer.body.error.fields)).toEqual(['foreign_id']);
      }),
      { numRuns: CASES_PER_ROUTE },
    );
    await expectNothingWrittenOrSent();
  });

  test.each(['%', '%zz', '%E0%A4%A', 'order%'])(
    'malformed percent-encoding %s answers 4xx, not 5xx',
    async (raw) => {
      const answer = await client.send({
        method: 'POST',
        path: `/invoices/${raw}/cancel`,
        headers: { authorization: `Bearer ${harness.stack.adminToken}` },
      });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
    },
  );
});

describe('cases the matrix found, pinned', () => {
  // `edge-` ids keep any record a regression writes out of the matrix's nothing-written check.
  test.each(['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf'])(
    'an unknown field named %s is refused like any other unknown field',
    async (name) => {
      const body = JSON.stringify(checkoutBody(`edge-proto-${name.replace(/_/g, '')}`)).replace(
        /}$/,
        `,${JSON.stringify(name)}:0}`,
      );
      const answer = await post('/checkout', harness.stack.storefrontToken, {
        label: name,
        body,
        contentType: 'application/json',
        status: 400,
        code: 'invalid_request',
      });
      expect(answer.status).toBe(400);
      expect(Object.keys(answer.body.error.fields)).toEqual([name]);
    },
  );

  test.each(['0', '42', '-1.5', '1e3'])(
    'a bare JSON number body %s is refused as not an object',
    async (text) => {
      const answer = await post('/refunds', harness.stack.adminToken, {
        label: text,
        body: text,
        contentType: 'application/json',
        status: 400,
        code: 'invalid_request',
      });
      expect(answer.status).toBe(400);
      expect(answer.body.error.fields).toHaveProperty('body');
      expect(answer.body.error.fields).not.toHaveProperty('isLosslessNumber');
    },
  );
});

describe('cases the review found, pinned', () => {
  test('a 250,000-digit amount is refused, naming it, before anything is written or sent', async () => {
    const digits = '9'.repeat(250_000);
    const checkout = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody('big-amount', { amount: digits }),
    });
    const refund = await harness.api('POST', '/refunds', {
      token: 'admin',
      body: refundBody('big-amount', { debited_amount: digits }),
    });

    expect([checkout.status, checkout.body.error.fields]).toEqual([400, { amount: expect.any(String) }]);
    expect([refund.status, refund.body.error.fields]).toEqual([400, { debited_amount: expect.any(String) }]);
    await expectNothingWrittenOrSent();
  });

  test('a field holding an array of 500,000 elements is refused as unknown, not a 500', async () => {
    const body = JSON.stringify(checkoutBody('wide-array')).replace(
      /}$/,
      `,"items":[${Array(500_000).fill('0').join(',')}]}`,
    );
    const answer = await post('/checkout', harness.stack.storefrontToken, {
      label: 'wide array',
      body,
      contentType: 'application/json',
      status: 400,
      code: 'invalid_request',
    });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.error.fields)).toEqual(['items']);
  });

  test('GET /transactions?id=0 is refused here, naming id, not sent to the service', async () => {
    const answer = await harness.api('GET', '/transactions?id=0', { token: 'admin' });
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('invalid_request');
    expect(Object.keys(answer.body.error.fields)).toEqual(['id']);
    expect(await harness.upstreamRequests('/v2/transactions/info')).toEqual([]);
  });
});

describe('valid edge cases: the service decides, and a refused record can be retried', () => {
  async function record(pk: string) {
    return (await scanTable(harness.stack)).find((item) => item.pk.S === pk);
  }

  test('checkout of 0.00000001 passes our checks, the service answers 422 on amount, a retry succeeds', async () => {
    const body = checkoutBody('edge-min-amount', { amount: '0.00000001' });
    const refused = await harness.api('POST', '/checkout', { token: 'storefront', body });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('rejected_by_processor');
    expect(Object.keys(refused.body.error.fields)).toEqual(['amount']);

    const polled = await harness.api('GET', '/invoices/edge-min-amount', { token: 'storefront' });
    expect(polled.body).toMatchObject({ status: 'failed', final: true });
    // The service's words for what it refused, never our client's own message about the call.
    expect(polled.body.failure_message).toMatch(/^amount: /);
    expect(polled.body.failure_message).not.toMatch(/createInvoice|HTTP/);
    const item = await record('INVOICE#edge-min-amount');
    expect(JSON.parse(item!.data.S!).phase).toBe('rejected');
    expect(item!.gsi1pk).toBeUndefined();

    const retried = await harness.api('POST', '/checkout', {
      token: 'storefront',
      body: { ...body, amount: '25.50' },
    });
    expect(retried.status).toBe(201);
    expect(retried.body.status).toBe('awaiting_payment');
  });

  test('an exact JSON number 0.00000001 reaches the service unchanged (not 1e-8) and is refused there', async () => {
    const text = JSON.stringify(checkoutBody('edge-number-amount')).replace('"25.50"', '0.00000001');
    const answer = await client.send({
      method: 'POST',
      path: '/checkout',
      headers: {
        authorization: `Bearer ${harness.stack.storefrontToken}`,
        'content-type': 'application/json',
      },
      body: text,
    });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.fields)).toEqual(['amount']);
    const [sent] = await harness
      .upstreamRequests('/v2/invoices/create')
      .then((all) => all.filter((entry) => entry.body.includes('edge-number-amount')));
    expect(sent.body).toMatch(/"amount":"?0\.00000001"?/);
  });

  test('a well-formed but unknown currency is the service to refuse: 422 on currency', async () => {
    const body = checkoutBody('edge-unknown-currency', { currency: 'ZZZ' });
    const answer = await harness.api('POST', '/checkout', { token: 'storefront', body });
    expect(answer.status).toBe(422);
    expect(Object.keys(answer.body.error.fields)).toEqual(['currency']);
  });

  test('limits are inclusive: 64-char foreign_id, 50-char title, 1000-char description are accepted', async () => {
    const foreignId = `edge-${'x'.repeat(59)}`;
    const body = checkoutBody(foreignId, { title: 't'.repeat(50), description: 'd'.repeat(1000) });
    const answer = await harness.api('POST', '/checkout', { token: 'storefront', body });
    expect(answer.status).toBe(201);
  });

  test('the largest checkout allowed (every field at its limit in 4-byte characters) is stored far below the item limit', async () => {
    const emoji = (count: number) => '😀'.repeat(count);
    const foreignId = `edge-${'y'.repeat(59)}`;
    const body = checkoutBody(foreignId, {
      amount: `${'9'.repeat(30)}.${'9'.repeat(8)}`,
      title: emoji(50),
      description: emoji(1000),
      end_user_reference: emoji(100),
      email: `${emoji(240)}@example.com`,
      url_success: `https://shop.example/${emoji(2020)}`,
      url_failed: `https://shop.example/${emoji(2020)}`,
      type: 'good_until_expired',
    });
    const answer = await harness.api('POST', '/checkout', { token: 'storefront', body });
    expect(answer.status).toBe(201);

    const item = await record(`INVOICE#${foreignId}`);
    // DynamoDB refuses items over 400 KB; this one holds every field twice (our request and the service's echo).
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(100_000);
  });

  test('refund of 0.00000001 EUR is refused by the service on debited_amount, and a retry succeeds', async () => {
    const body = refundBody('edge-min-refund', { debited_amount: '0.00000001' });
    const refused = await harness.api('POST', '/refunds', { token: 'admin', body });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.body.error.fields)).toEqual(['debited_amount']);
    const item = await record('REFUND#edge-min-refund');
    expect(JSON.parse(item!.data.S!).phase).toBe('rejected');
    expect(item!.gsi1pk).toBeUndefined();

    const retried = await harness.api('POST', '/refunds', {
      token: 'admin',
      body: { ...body, debited_amount: '10' },
    });
    expect(retried.status).toBe(201);
  });
});
