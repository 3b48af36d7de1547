// The operator console in a real browser against the local stack: signing in, an invoice and its cancel, text
// that looks like markup, balances, and the webhooks tab. Every state passes axe and leaves a screenshot.
import type { Page } from 'playwright-core';
import { openPage } from '../support/browser';
import { invoiceCallbackBody, postCallback, signedHeaders } from '../support/callbacks';
import { ConsoleSuite, expectAccessibleState, signIn } from '../support/console-page';
import { waitFor } from '../support/wait';

const suite = new ConsoleSuite();

const openInvoice = async (page: Page, foreignId: string) => {
  await page.getByRole('link', { name: foreignId, exact: true }).click();
  await page
    .getByRole('status')
    .filter({ hasText: `Invoice ${foreignId} loaded.` })
    .waitFor();
};

test('a wrong token and the storefront token get a clear message; the admin token opens the invoices and stays out of URLs and storage', async () => {
  const { page, errors } = await openPage(suite.browser);
  await page.goto(`${suite.harness.stack.url}/console/`);
  await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
  // Not a password the browser offers to save: a token field for one sign-in.
  await expect(page.getByLabel('Admin token').getAttribute('autocomplete')).resolves.toBe('one-time-code');
  await expectAccessibleState(page, 'sign-in');

  await signIn(page, 'not-the-token');
  const alert = page.getByRole('alert').filter({ hasText: 'The bearer token is not valid' });
  await alert.waitFor();
  await expect(alert.textContent()).resolves.toContain('unauthorized');
  await expectAccessibleState(page, 'wrong-token');

  await signIn(page, suite.harness.stack.storefrontToken);
  // The storefront token is the checkout's: the console says which tokens it takes.
  await page
    .getByRole('alert')
    .filter({ hasText: 'This is a storefront token' })
    .filter({ hasText: 'the store’s admin token or the platform token' })
    .waitFor();

  await signIn(page, suite.harness.stack.adminToken);
  await page.getByRole('heading', { level: 1, name: 'Invoices' }).waitFor();
  expect(page.url()).not.toContain(suite.harness.stack.adminToken);
  const stored = await page.evaluate(() => {
    const { localStorage, sessionStorage, document } = globalThis as any;
    return localStorage.length + sessionStorage.length + document.cookie.length;
  });
  expect(stored).toBe(0);
  expect(errors.filter((error) => !error.includes('status of 40'))).toEqual([]);
});

test('the operator cancels an unpaid order after confirming its amount', async () => {
  await suite.checkout('console-cancel');
  const { page, errors } = await suite.open();
  await openInvoice(page, 'console-cancel');
  await page.getByRole('heading', { level: 1, name: 'Order console-cancel' }).waitFor();
  await expectAccessibleState(page, 'invoice-open');

  await page.getByRole('button', { name: 'Cancel invoice…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel invoice console-cancel?' });
  await expect(dialog.textContent()).resolves.toContain('25.50 EUR');
  await expectAccessibleState(page, 'cancel-dialog');

  await dialog.getByRole('button', { name: 'Yes, cancel invoice' }).click();
  await page.getByRole('status').filter({ hasText: 'Invoice console-cancel is cancelled.' }).waitFor();
  await expect(page.locator('.invoice-head .badge').textContent()).resolves.toBe('Cancelled');
  await expect(page.getByRole('button', { name: 'Cancel invoice…' }).count()).resolves.toBe(0);
  // Nothing is owed on a cancelled invoice, and its history says what the shop did, in the shop's words.
  await expect(page.getByRole('region', { name: 'Payment' }).textContent()).resolves.not.toContain(
    'Still to pay',
  );
  const history = page.getByRole('table', { name: 'What happened, oldest first' });
  await expect(history.textContent()).resolves.toMatch(/Cancelled.*Your cancel/);
  await expectAccessibleState(page, 'invoice-cancelled');
  expect(await suite.invoiceStatus('console-cancel', 'cancelled')).toBe('cancelled');
  expect(errors).toEqual([]);
});

test('a cancel the API refuses shows its code and message, and the invoice stays as it is', async () => {
  await suite.checkout('console-paid');
  const { page, errors } = await suite.open();
  await openInvoice(page, 'console-paid');
  // The customer pays while the operator looks at the open invoice.
  await suite.harness.control('POST', '/invoices/console-paid/pay', { kind: 'full' });
  await suite.invoiceStatus('console-paid', 'paid');

  await page.getByRole('button', { name: 'Cancel invoice…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: 'Yes, cancel invoice' }).click();
  const refusal = dialog.getByRole('alert').filter({ hasText: 'invoice_paid' });
  await refusal.waitFor();
  await expect(refusal.textContent()).resolves.toContain('The invoice is paid; it cannot be cancelled');
  await expectAccessibleState(page, 'cancel-refused');
  await dialog.getByRole('button', { name: 'Keep invoice' }).click();
  await dialog.waitFor({ state: 'detached' });
  expect(await suite.invoiceStatus('console-paid', 'paid')).toBe('paid');
  expect(errors.filter((error) => !error.includes('status of 409'))).toEqual([]);
});

test('money paid after a cancel shows on the invoice with what was credited, and can be refunded', async () => {
  await suite.checkout('console-paid-after-cancel', { timer: true });
  const cancelled = await suite.harness.api('POST', '/invoices/console-paid-after-cancel/cancel', {
    token: 'admin',
  });
  expect(cancelled.status).toBe(200);
  await suite.harness.control('POST', '/invoices/console-paid-after-cancel/pay', { kind: 'full' });
  const { body } = await waitFor(
    () => suite.harness.api('GET', '/invoices/console-paid-after-cancel', { token: 'admin' }),
    ({ body }) => body.refundable !== null,
    60_000,
  );
  const { page, errors } = await suite.open();
  await openInvoice(page, 'console-paid-after-cancel');

  const notice = page.locator('.notice-warning');
  await expect(notice.textContent()).resolves.toMatch(/paid .* after this invoice was cancelled/);
  await expect(notice.textContent()).resolves.toContain('The payment service credited 25.245 EUR');
  await expect(page.locator('.invoice-head .badge-exception').textContent()).resolves.toBe('Paid late');
  await expect(page.getByRole('button', { name: 'Refund…' }).count()).resolves.toBe(1);
  expect(body.refundable).toEqual({ amount: body.net_amount, currency: 'EUR' });
  await expectAccessibleState(page, 'invoice-paid-after-cancel');
  expect(errors).toEqual([]);
});

test("less than was due paid after a cancel is shown as the payment service's to return, with no refund", async () => {
  await suite.checkout('console-short-after-cancel', { timer: true });
  const cancelled = await suite.harness.api('POST', '/invoices/console-short-after-cancel/cancel', {
    token: 'admin',
  });
  expect(cancelled.status).toBe(200);
  await suite.harness.control('POST', '/invoices/console-short-after-cancel/pay', { kind: 'under' });
  await waitFor(
    () => suite.harness.api('GET', '/invoices/console-short-after-cancel', { token: 'admin' }),
    ({ body }) => body.exception === 'paid_late',
    60_000,
  );
  const { page, errors } = await suite.open();
  await openInvoice(page, 'console-short-after-cancel');

  const notice = page.locator('.notice-warning');
  await expect(notice.textContent()).resolves.toContain(
    'the payment service returns it to the customer itself',
  );
  await expect(page.getByRole('button', { name: 'Refund…' }).count()).resolves.toBe(0);
  expect(errors).toEqual([]);
});

test('money after a cancel that covers the quote is refundable, though the service says some remains: the console follows the refund route', async () => {
  const foreignId = 'console-due-by-quote';
  await suite.checkout(foreignId, { timer: true });
  const quoted = await suite.harness.api('POST', `/invoices/${foreignId}/cancel`, { token: 'admin' });
  expect(quoted.status).toBe(200);
  // The whole quote arrives late, and the service's callback still reports a remainder of its own reckoning.
  const body = invoiceCallbackBody(foreignId, 'failed', {
    error: 'Invoice cancelled by merchant.',
    currency_sent: {
      currency: quoted.body.pay_currency,
      amount: Number(quoted.body.pay_amount),
      remaining_amount: 0.00001,
    },
    currency_received: { currency: 'EUR', amount: 25.245 },
  });
  expect((await postCallback(suite.harness, body, signedHeaders(suite.harness, body))).status).toBe(200);
  const { body: view } = await suite.harness.api('GET', `/invoices/${foreignId}`, { token: 'admin' });
  expect(view).toMatchObject({
    exception: 'paid_late',
    owed_amount: '0.00001000',
    refundable: { amount: '25.24500000', currency: 'EUR' },
    not_refundable_reason: null,
  });
  const { page, errors } = await suite.open();
  await openInvoice(page, foreignId);

  const notice = page.locator('.notice-warning');
  await expect(notice.textContent()).resolves.toContain('The payment service credited 25.245 EUR');
  await expect(notice.textContent()).resolves.not.toContain('less than was due');
  await expect(page.getByRole('button', { name: 'Refund…' }).count()).resolves.toBe(1);
  expect(errors).toEqual([]);
});

test('a title and metadata written as markup show as text', async () => {
  const title = '<img src=x onerror=alert(1)><b>Mug</b>';
  const note = '<script>alert(2)</script><i>fragile</i>';
  await suite.checkout('console-markup', { title, metadata: { note } });
  const { page, errors } = await suite.open();
  await page.getByRole('cell', { name: title, exact: true }).waitFor();
  await openInvoice(page, 'console-markup');
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor();
  await page.getByRole('cell', { name: note, exact: true }).waitFor();
  const injected = await page.locator('#view img, #view b, #view i, #view script').count();
  expect(injected).toBe(0);
  await expectAccessibleState(page, 'markup-as-text');
  expect(errors).toEqual([]);
});

test('a chart per currency with its axes and latest value written; one snapshot shows its point; the live balance comes on demand', async () => {
  await suite.harness.stack.runJob('snapshot-balances');
  const { page, errors } = await suite.open();
  await page.getByRole('link', { name: 'Balances' }).click();
  await page.getByText(/^One snapshot so far/).waitFor();
  await page.getByRole('img', { name: /^BTC balance over 1 snapshots/ }).waitFor();
  await expectAccessibleState(page, 'balances-one-snapshot');

  await suite.harness.control('POST', '/balances', { currency: 'BTC', balance: '2.25' });
  await suite.harness.stack.runJob('snapshot-balances');
  await page.getByLabel('Period').selectOption({ label: 'Last 24 hours' });
  const chart = page.getByRole('img', { name: /^BTC balance over 2 snapshots/ });
  await chart.waitFor();
  // Readable without hovering: the latest value is written above its chart, and its name says it too.
  const caption = page.locator('figure', { has: chart }).locator('figcaption');
  await expect(caption.textContent()).resolves.toMatch(/^BTC 2\.25 BTC at /);
  await expect(chart.getAttribute('aria-label')).resolves.toContain('the latest 2.25 BTC.');
  // The plot's canvas holds the line, the points and both axes: count the pixels in BTC's colour, and the axes' ink.
  const pixels = await chart.locator('canvas').evaluate((canvas: any) => {
    const { data } = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height);
    let line = 0;
    let ink = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i] === 0x25 && data[i + 1] === 0x63 && data[i + 2] === 0xeb && data[i + 3] === 255) line++;
      if (data[i] === 0x33 && data[i + 1] === 0x41 && data[i + 2] === 0x55 && data[i + 3] === 255) ink++;
    }
    return { line, ink };
  });
  expect(pixels.line).toBeGreaterThan(50);
  expect(pixels.ink).toBeGreaterThan(50);
  await page.getByText('The snapshots as a table').click();
  const rows = page.getByRole('table', { name: 'Balance snapshots, oldest first' }).locator('tbody tr');
  await expect(rows.count()).resolves.toBe(2);
  await expect(rows.nth(1).textContent()).resolves.toContain('2.25');
  await expectAccessibleState(page, 'balances');

  await page.getByRole('button', { name: 'Show live balance' }).click();
  await page.getByRole('table', { name: /^Live balance/ }).waitFor();
  await page.getByRole('img', { name: /^BTC balance over 3 snapshots/ }).waitFor();
  await expectAccessibleState(page, 'balances-live');
  expect(errors).toEqual([]);
});

test('the webhooks tab, with no webhook URL set, says there are no deliveries and how to set one', async () => {
  const { page, errors } = await suite.open();
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Webhook deliveries' }).waitFor();
  await page.getByRole('status').filter({ hasText: 'Page 1: 0 deliveries.' }).waitFor();
  await expect(page.getByText(/^No webhook deliveries yet/).textContent()).resolves.toContain(
    'STORE_WEBHOOK_URL for npm start, the webhookUrl context in AWS',
  );
  await expectAccessibleState(page, 'webhooks-none');
  expect(errors).toEqual([]);
});

const focused = (page: Page) => page.evaluate(() => (globalThis as any).document.activeElement?.textContent);

/** Presses Tab until the element named `name` has the focus, as a keyboard user would. */
const tabTo = async (page: Page, name: string) => {
  for (let presses = 0; presses < 30 && (await focused(page)) !== name; presses++)
    await page.keyboard.press('Tab');
  expect(await focused(page)).toBe(name);
};

test('works by keyboard alone: sign in, open an invoice, dismiss the cancel dialog with Escape, then cancel', async () => {
  await suite.checkout('console-keys');
  const { page, errors } = await openPage(suite.browser);
  await page.goto(`${suite.harness.stack.url}/console/`);
  await page.getByLabel('Admin token').waitFor();
  await page.keyboard.type(suite.harness.stack.adminToken);
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Page 1:' }).waitFor();
  expect(await focused(page)).toBe('Invoices');

  await tabTo(page, 'console-keys');
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Invoice console-keys loaded.' }).waitFor();
  expect(await focused(page)).toBe('Order console-keys');

  await tabTo(page, 'Cancel invoice…');
  await page.keyboard.press('Enter');
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  expect(await focused(page)).toBe('Keep invoice');
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'detached' });
  expect(await focused(page)).toBe('Cancel invoice…');

  await page.keyboard.press('Enter');
  await tabTo(page, 'Yes, cancel invoice');
  await page.keyboard.press('Enter');
  await page.getByRole('status').filter({ hasText: 'Invoice console-keys is cancelled.' }).waitFor();
  expect(await focused(page)).toBe('Order console-keys');
  expect(await suite.invoiceStatus('console-keys', 'cancelled')).toBe('cancelled');
  expect(errors).toEqual([]);
});
