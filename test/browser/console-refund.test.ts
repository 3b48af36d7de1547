// The operator refunds a paid order from its invoice page and sees the refund in the invoice's list, through
// POST /invoices/{foreign_id}/refunds and the view's `refundable` and `refunds`.
import { ConsoleSuite, expectAccessibleState } from '../support/console-page';

describe('refunds from the console', () => {
  const suite = new ConsoleSuite();

  const paidOrder = async (foreignId: string) => {
    await suite.checkout(foreignId);
    await suite.harness.control('POST', `/invoices/${foreignId}/pay`, { kind: 'full' });
    expect(await suite.invoiceStatus(foreignId, 'paid')).toBe('paid');
  };

  test('the operator refunds part of a paid order within its bounds and sees it in the list', async () => {
    await paidOrder('console-refund');
    const { page, errors } = await suite.open();
    await page.getByRole('link', { name: 'console-refund', exact: true }).click();
    await page.getByText('Refundable: 25.245 EUR').waitFor();
    await page.getByRole('button', { name: 'Refund…' }).click();

    const dialog = page.getByRole('dialog', { name: 'Refund invoice console-refund' });
    await expect(dialog.getByLabel('Amount (EUR)').inputValue()).resolves.toBe('25.245');
    await expect(dialog.getByLabel('Customer receives').inputValue()).resolves.toBe('BTC');
    await expect(dialog.textContent()).resolves.toContain('Up to 25.245 EUR can be refunded.');
    await dialog.getByLabel('Amount (EUR)').fill('10');
    await dialog.getByLabel('Destination address').fill('bc1qrefundaddress0000000000000000000000');
    await expectAccessibleState(page, 'refund-dialog');

    await dialog.getByRole('button', { name: 'Send refund' }).click();
    await page.getByRole('status').filter({ hasText: 'Refund of 10.00 EUR sent.' }).waitFor();
    const refunds = page.getByRole('table', { name: 'Refunds of this invoice' });
    await expect(refunds.locator('tbody tr').count()).resolves.toBe(1);
    await expect(refunds.textContent()).resolves.toContain('10.00 EUR');
    await page.getByText('Refundable: 15.245 EUR').waitFor();
    // One word for a refund being sent, as in every view; the sandbox can end it as the payment service would.
    const row = refunds.locator('tbody tr').first();
    await row.getByText('Sending').waitFor();
    await expectAccessibleState(page, 'refunded');
    await row.getByRole('button', { name: /^Complete refund \S+ \(sandbox\)$/ }).click();
    await page.getByRole('status').filter({ hasText: 'sent in the sandbox.' }).waitFor();
    await page
      .getByRole('table', { name: 'Refunds of this invoice' })
      .locator('tbody tr')
      .first()
      .getByText('Sent', { exact: true })
      .waitFor();
    await page.getByText('Refundable: 15.245 EUR').waitFor();
    expect(errors).toEqual([]);
  });

  test('a refund held for approval says what the owner must do; declined, it shows so and releases its amount', async () => {
    await paidOrder('console-refund-held');
    expect(
      (await suite.harness.control('POST', '/approval-limits', { currency: 'EUR', limit: '5' })).status,
    ).toBe(200);
    try {
      const { page, errors } = await suite.open();
      await page.getByRole('link', { name: 'console-refund-held', exact: true }).click();
      await page.getByRole('button', { name: 'Refund…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Refund invoice console-refund-held' });
      await dialog.getByLabel('Amount (EUR)').fill('10');
      await dialog.getByLabel('Destination address').fill('bc1qrefundaddress0000000000000000000000');
      await dialog.getByRole('button', { name: 'Send refund' }).click();
      await page.getByRole('status').filter({ hasText: 'Refund of 10.00 EUR sent.' }).waitFor();

      const row = page.getByRole('table', { name: 'Refunds of this invoice' }).locator('tbody tr').first();
      await row.getByText('Awaiting approval').waitFor();
      await row.getByText("Approve or decline it in the payment service's back office.").waitFor();
      await page.getByText('Refundable: 15.245 EUR').waitFor();
      await expectAccessibleState(page, 'refund-awaiting-approval');
      await row.getByRole('button', { name: /^Decline refund \S+ \(sandbox\)$/ }).click();
      await page.getByRole('status').filter({ hasText: 'declined in the sandbox.' }).waitFor();
      const ended = page.getByRole('table', { name: 'Refunds of this invoice' }).locator('tbody tr').first();
      await ended.getByText('Declined by an owner').waitFor();
      await page.getByText('Refundable: 25.245 EUR').waitFor();
      await expectAccessibleState(page, 'refund-declined');
      expect(errors).toEqual([]);
    } finally {
      await suite.harness.control('POST', '/approval-limits', { currency: 'EUR', limit: null });
    }
  });

  test('a refund whose answer was lost, sent again from a dialog opened anew, is still one refund', async () => {
    await paidOrder('console-refund-lost');
    const { page, errors } = await suite.open();
    await page.getByRole('link', { name: 'console-refund-lost', exact: true }).click();
    // The first refund reaches the API; its answer never reaches the browser.
    await page.route(
      '**/invoices/console-refund-lost/refunds',
      async (route) => {
        await route.fetch();
        await route.abort('connectionreset');
      },
      { times: 1 },
    );
    const sendRefund = async () => {
      await page.getByRole('button', { name: 'Refund…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Refund invoice console-refund-lost' });
      await dialog.getByLabel('Amount (EUR)').fill('10');
      await dialog.getByLabel('Destination address').fill('bc1qrefundaddress0000000000000000000000');
      const refundId = await dialog.locator('dd').first().textContent();
      await dialog.getByRole('button', { name: 'Send refund' }).click();
      return { dialog, refundId };
    };

    const lost = await sendRefund();
    await lost.dialog.getByRole('alert').filter({ hasText: 'network_error' }).waitFor();
    await lost.dialog.getByRole('button', { name: 'Close' }).click();
    await lost.dialog.waitFor({ state: 'detached' });
    const again = await sendRefund();
    await page.getByRole('status').filter({ hasText: 'Refund of 10.00 EUR sent.' }).waitFor();
    expect(again.refundId).toBe(lost.refundId);
    const refunds = page.getByRole('table', { name: 'Refunds of this invoice' });
    await expect(refunds.locator('tbody tr').count()).resolves.toBe(1);
    await page.getByText('Refundable: 15.245 EUR').waitFor();
    expect(errors.filter((error) => !error.includes('ERR_CONNECTION_RESET'))).toEqual([]);
  });

  test('a refund beyond the refundable amount is refused in the dialog, naming the bound', async () => {
    await paidOrder('console-refund-over');
    const { page, errors } = await suite.open();
    await page.getByRole('link', { name: 'console-refund-over', exact: true }).click();
    await page.getByRole('button', { name: 'Refund…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Amount (EUR)').fill('30');
    await dialog.getByLabel('Destination address').fill('bc1qrefundaddress0000000000000000000000');
    await dialog.getByRole('button', { name: 'Send refund' }).click();
    const refusal = dialog.getByRole('alert').filter({ hasText: 'refund_exceeds_refundable' });
    await refusal.waitFor();
    await expect(refusal.textContent()).resolves.toContain('25.245');
    await expectAccessibleState(page, 'refund-refused');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(page.getByRole('table', { name: 'Refunds of this invoice' }).count()).resolves.toBe(0);
    expect(errors.filter((error) => !error.includes('status of 409'))).toEqual([]);
  });
});
