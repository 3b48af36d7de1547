// With no webhook endpoint set, a change makes no event: the records carry no outbox and keep their size, and
// nothing waits in the deliveries-due index.
import { checkoutBody, startHarness, type Harness } from '../support/local-stack';
import { scanTable, storedRecord } from '../support/table';
import { waitFor } from '../support/wait';

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness();
});
afterAll(() => harness.close());

test('an order paid with webhooks off leaves no outbox on its record and nothing due for delivery', async () => {
  const created = await harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody('off-1'),
  });
  expect(created.status).toBe(201);
  await harness.control('POST', '/invoices/off-1/pay', { kind: 'full' });
  await waitFor(
    () => harness.api('GET', '/invoices/off-1', { token: 'storefront' }),
    (answer) => answer.body.status === 'paid',
  );

  expect(await storedRecord(harness.stack, 'INVOICE', 'off-1')).not.toHaveProperty('outbox');
  const items = await scanTable(harness.stack);
  expect(items.filter((item) => item.gsi3pk !== undefined)).toEqual([]);
});
