// Callbacks per store (issue 33), through the real handlers on the local stack: a store prefix routes a callback
// to a store that shares the account, and POST /callbacks/{store_id} takes only a store with its own account.
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

test('POST /callbacks/{store_id} answers 404 store_not_found for a store without its own account, 400 for a bad id', async () => {
  await pendingInvoice('sc-order-2');
  const before = await tableText();
  const body = invoiceCallbackBody('sc-order-2', 'confirmed');
  const post = (storeId: string) =>
    harness.api('POST', `/callbacks/${storeId}`, {
      body,
      headers: { 'content-type': 'application/json', ...signedHeaders(harness, body) },
    });

  // The default store shares the deployment's account: its callbacks come to /callbacks.
  for (const storeId of ['default', 'no-such-store']) {
    const answer = await post(storeId);
    expect(answer.status).toBe(404);
    expect(answer.body).toMatchObject({ error: { code: 'store_not_found' } });
  }
  const bad = await post('Not_A_Store');
  expect(bad.status).toBe(400);
  expect(bad.body).toMatchObject({ error: { fields: { store_id: expect.any(String) } } });
  expect(await tableText()).toBe(before);
});
