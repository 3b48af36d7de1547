// Callbacks per store (issue 33), through the real handlers on the local stack: a store prefix routes a callback
// to a store that shares the account, and POST /callbacks/{store_id} takes only a store with its own account,
// answering any other id as it answers a wrong signature.
// Until the registry knows other stores, only the default store exists: what is checked here is that nothing
// addressed to another store reaches the default store's records.
import { invoiceCallbackBody, postCallback, signedHeaders } from '../support/callbacks';
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';
import { scanTable } from '../support/table';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput();
  harness = await startHarness();
});
afterAll(async () => {
  await harness.close();
  output.restore();
});
beforeEach(() => harness.control('POST', '/callbacks', { url: null, duplicate: false }));

const tableText = async () =>
  JSON.stringify((await scanTable(harness.stack)).map((item) => JSON.stringify(item)).sort());

async function pendingInvoice(foreignId: string) {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody(foreignId),
  });
  expect(created.status).toBe(201);
}

test("a signed callback naming another store's prefix is ignored and changes no record of the default store", async () => {
  await pendingInvoice('sc-order-1');
  const before = await tableText();

  for (const foreignId of ['shop-x!sc-order-1', 'default!sc-order-1', 'Shop!sc-order-1']) {
    const body = invoiceCallbackBody(foreignId, 'confirmed');
    const answer = await postCallback(harness, body, signedHeaders(harness, body));
    expect({ foreignId, status: answer.status, body: answer.body }).toEqual({
      foreignId,
      status: 200,
      body: { outcome: 'ignored' },
    });
  }
  expect(await tableText()).toBe(before);

  // The default store's own news, with no prefix, still arrives as before.
  const body = invoiceCallbackBody('sc-order-1', 'processing');
  expect((await postCallback(harness, body, signedHeaders(harness, body))).body).toEqual({
    outcome: 'applied',
  });
});

test('POST /callbacks/{store_id} answers 403 invalid_signature for a store without its own account, 400 for a bad id', async () => {
  await pendingInvoice('sc-order-2');
  const before = await tableText();
  const body = invoiceCallbackBody('sc-order-2', 'confirmed');
  const post = (storeId: string) =>
    harness.api('POST', `/callbacks/${storeId}`, {
      body,
      headers: { 'content-type': 'application/json', ...signedHeaders(harness, body) },
    });

  // The default store shares the deployment's account: its callbacks come to /callbacks, and the deployment's
  // signature opens no store's own URL.
  for (const storeId of ['default', 'no-such-store']) {
    const answer = await post(storeId);
    expect({ storeId, status: answer.status, code: answer.body.error?.code }).toEqual({
      storeId,
      status: 403,
      code: 'invalid_signature',
    });
  }
  const bad = await post('Not_A_Store');
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ error: { fields: { store_id: expect.any(String) } } });
  expect(await tableText()).toBe(before);
});

test('a wrong signature on /callbacks/{store_id} answers byte for byte the same whatever the store id names', async () => {
  const made = async (id: string, extra: object = {}) => {
    const answer = await harness.api('POST', '/stores', {
      token: 'platform',
      body: { id, name: id, ...extra },
    });
    expect(answer.status).toBe(201);
  };
  const processing = { api_key: 'sc-own-key', secret_key: 'sc-own-secret', base_url: 'https://pay.test' };
  await made('sc-own', { processing });
  await made('sc-own-off', { processing });
  await made('sc-shared');
  await made('sc-shared-off');
  for (const id of ['sc-own-off', 'sc-shared-off']) {
    expect((await harness.api('POST', `/stores/${id}/disable`, { token: 'platform' })).status).toBe(200);
  }
  const before = await tableText();

  const body = invoiceCallbackBody('sc-order-3', 'confirmed');
  const madeUp = { 'X-Processing-Key': 'sc-own-key', 'X-Processing-Signature': 'ab'.repeat(64) };
  const otherKey = { 'X-Processing-Key': 'made-up-key', 'X-Processing-Signature': 'ab'.repeat(64) };
  const answers = new Set<string>();
  for (const storeId of ['sc-own', 'sc-own-off', 'sc-shared', 'sc-shared-off', 'default', 'sc-no-such']) {
    for (const headers of [madeUp, otherKey, signedHeaders(harness, body), {}]) {
      const response = await fetch(`${harness.stack.url}/callbacks/${storeId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body,
      });
      const answer = JSON.stringify({
        status: response.status,
        type: response.headers.get('content-type'),
        body: await response.text(),
      });
      answers.add(answer);
    }
  }
  expect([...answers]).toEqual([
    JSON.stringify({
      status: 403,
      type: 'application/json',
      body: JSON.stringify({
        error: { code: 'invalid_signature', message: 'The callback signature is missing or wrong' },
      }),
    }),
  ]);
  // The same answer as the deployment's own URL gives a wrong signature.
  const shared = await postCallback(harness, body, madeUp);
  expect({ status: shared.status, body: shared.body }).toEqual({
    status: 403,
    body: { error: { code: 'invalid_signature', message: 'The callback signature is missing or wrong' } },
  });
  expect(await tableText()).toBe(before);
});
