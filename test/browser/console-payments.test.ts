// The console's invoice page lists the customer's transactions, each linked on a block explorer, in a real browser.
import { ConsoleSuite, expectAccessibleState } from '../support/console-page';

const suite = new ConsoleSuite();

test('a paid order in three instalments: three transactions, first seen first, each with its explorer link', async () => {
  await suite.checkout('console-proof', { type: 'good_until_expired', sender_currency: 'BTC' });
  for (const kind of ['partial', 'partial', 'full']) {
    const paid = await suite.harness.control('POST', '/invoices/console-proof/pay', {
      kind,
      ...(kind === 'partial' && { amount: '0.00001' }),
    });
    expect(paid.status).toBe(200);
  }
  await suite.invoiceStatus('console-proof', 'paid');
  const txids = (
    (await suite.harness.control('GET', '/invoices/console-proof')).body.deposits as Array<{
      txid: string;
    }>
  ).map((deposit) => deposit.txid);
  expect(txids).toHaveLength(3);

  const { page, errors } = await suite.open();
  await page.getByRole('link', { name: 'console-proof', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Invoice console-proof loaded.' }).waitFor();

  const section = page.getByRole('region', { name: 'Transactions' });
  const table = section.getByRole('table', { name: 'The customer’s transactions, first seen first' });
  const links = table.getByRole('link');
  await expect(links.allTextContents()).resolves.toEqual(txids);
  for (const [index, txid] of txids.entries()) {
    await expect(links.nth(index).getAttribute('href')).resolves.toBe(`https://mempool.space/tx/${txid}`);
    await expect(links.nth(index).getAttribute('rel')).resolves.toBe('noopener noreferrer');
  }
  await expect(table.getByRole('row').nth(1).textContent()).resolves.toContain('0.00001');
  await expectAccessibleState(page, 'invoice-transactions');
  expect(errors).toEqual([]);
});

test('an open order with nothing paid says so', async () => {
  await suite.checkout('console-no-proof');
  const { page, errors } = await suite.open();
  await page.getByRole('link', { name: 'console-no-proof', exact: true }).click();
  await page.getByRole('status').filter({ hasText: 'Invoice console-no-proof loaded.' }).waitFor();
  await expect(
    page.getByRole('region', { name: 'Transactions' }).getByText('No transaction reported yet.').isVisible(),
  ).resolves.toBe(true);
  expect(errors).toEqual([]);
});
