// The demo store and the checkout widget in a real browser, driven as a customer would: by roles and names. Each
// widget state passes axe and leaves a screenshot; no secret or token ever reaches a URL the browser asks for.
import type { Browser, Page } from 'playwright-core';
import { startHarness, type Harness } from '../support/local-stack';
import { axeViolations, launchBrowser, openPage, screenshot } from '../support/browser';
import { captureOutput, type CapturedOutput } from '../support/output';

let harness: Harness;
let browser: Browser;
let output: CapturedOutput;

beforeAll(async () => {
  output = captureOutput();
  harness = await startHarness();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await harness?.close();
  output.restore();
});

/** Generous: the widget polls with backoff (at most 10 s apart while nothing changes) on a busy machine. */
const STATE_TIMEOUT = 90_000;

interface Shop {
  page: Page;
  errors: string[];
  /** Every request the browser made: its URL and headers. */
  requests: Array<{ url: string; headers: Record<string, string> }>;
  clientSecret: string;
  /** The order the demo store checked out. */
  foreignId: string;
  widget: ReturnType<Page['getByRole']>;
}

interface CheckoutOptions {
  /** The order title the customer types. */
  title?: string;
  /** Stands in for the API's customer view, as the browser receives it. */
  publicInvoice?: object;
  /** The first status the widget shows; `Waiting for your payment` unless given. */
  firstStatus?: string;
}

/**
 * The widget's redirect to the shop, ten minutes after a final status in place of the demo page's 5 s, so that a
 * slow machine looks at the final state (screenshot, axe) before the page goes; the tests go back with "Continue
 * now" (demo-events.test.ts follows the redirect itself).
 */
const REDIRECT_AFTER_MS = 600_000;

/** Opens the demo store, checks out, and waits for the widget to wait for the payment. */
async function checkout({
  title,
  publicInvoice,
  firstStatus = 'Waiting for your payment',
}: CheckoutOptions = {}): Promise<Shop> {
  const { page, errors } = await openPage(browser);
  const requests: Shop['requests'] = [];
  page.on('request', (request) => requests.push({ url: request.url(), headers: request.headers() }));
  if (publicInvoice)
    await page.route('**/public/invoices/*', (route) => route.fulfill({ json: publicInvoice }));
  // The page imports this module in place of the widget's, which it passes every mount on to.
  await page.route(
    (url) => url.pathname === '/widget/widget.js' && url.search === '',
    (route) =>
      route.fulfill({
        contentType: 'text/javascript',
        body: `import { mount as mountWidget } from './widget.js?as-served';
          export function mount(element, options) {
            return mountWidget(element, { ...options, redirectAfterMs: ${REDIRECT_AFTER_MS} });
          }`,
      }),
  );
  const answered = page.waitForResponse((response) => response.url().endsWith('/demo/api/checkout'));
  await page.goto(`${harness.stack.url}/demo/`);
  await page.getByRole('heading', { level: 1, name: 'Espresso machine' }).waitFor();
  if (title !== undefined) await page.getByLabel('Order title, as the payment shows it').fill(title);
  await page.getByRole('button', { name: 'Pay with crypto' }).click();
  const { client_secret: clientSecret, foreign_id: foreignId } = await (await answered).json();
  const widget = page.getByRole('region', { name: 'Payment' });
  await widget.getByRole('status').filter({ hasText: firstStatus }).waitFor({ timeout: STATE_TIMEOUT });
  return { page, errors, requests, clientSecret, foreignId, widget };
}

/** Waits for the status to say `words` and, for a final one, what the customer should do now (`next`). */
async function expectState(shop: Shop, words: string, name: string, next?: string): Promise<void> {
  const status = shop.widget.getByRole('status').filter({ hasText: words });
  await status.waitFor({ timeout: STATE_TIMEOUT });
  if (next !== undefined) await expect(status.textContent()).resolves.toBe(`${words} ${next}`);
  await screenshot(shop.page, name);
  expect(await axeViolations(shop.page)).toEqual([]);
}

/** No URL the browser asked for holds the client secret or a bearer token, and no request sent a token. */
function expectNoSecretInUrls(shop: Shop): void {
  const secrets = [shop.clientSecret, harness.stack.storefrontToken, harness.stack.adminToken];
  for (const { url, headers } of shop.requests) {
    for (const secret of secrets) expect(decodeURIComponent(url)).not.toContain(secret);
    expect(headers.authorization).toBeUndefined();
  }
  const reads = shop.requests.filter(({ url }) => url.includes('/public/invoices/'));
  expect(reads.length).toBeGreaterThan(0);
  for (const { headers } of reads) expect(headers['x-client-secret']).toBe(shop.clientSecret);
}

test('pay in full: the widget shows what to pay, then paid, then takes the customer back to the shop', async () => {
  const shop = await checkout();
  const { page, widget } = shop;
  await expect(widget.getByRole('heading', { name: 'Espresso machine' }).isVisible()).resolves.toBe(true);
  // Whom the customer pays, what the order costs in its own currency, and the rate the crypto amount implies.
  await expect(widget.getByText('Northwind Coffee', { exact: true }).isVisible()).resolves.toBe(true);
  await expect(definition(widget, 'Order total')).resolves.toMatch(/^\d+\.\d\d EUR$/);
  await expect(definition(widget, 'Exchange rate')).resolves.toMatch(/^1 BTC = \d{1,3}(,\d{3})*\.\d\d EUR$/);
  await expect(widget.getByRole('img', { name: /QR code/ }).isVisible()).resolves.toBe(true);
  await expect(widget.getByRole('button', { name: 'Copy address' }).isVisible()).resolves.toBe(true);
  await expect(widget.getByText(/^\d+\.\d+ BTC$/).isVisible()).resolves.toBe(true);
  // 15 minutes to pay, less what a slow machine took since the checkout.
  await expect(widget.getByText(/^1[0-5]:\d\d$/).isVisible()).resolves.toBe(true);
  await expect(widget.getByRole('link', { name: 'Open in wallet' }).getAttribute('href')).resolves.toMatch(
    /^bitcoin:\w+\?amount=[\d.]+$/,
  );
  // Keyboard alone reaches the copy buttons.
  await widget.getByRole('button', { name: 'Copy amount' }).focus();
  await page.keyboard.press('Tab');
  await expect(
    widget
      .getByRole('button', { name: 'Copy address' })
      .evaluate(
        (node) =>
          node === (globalThis as unknown as { document: { activeElement: unknown } }).document.activeElement,
      ),
  ).resolves.toBe(true);
  await screenshot(page, 'widget-awaiting-payment');
  expect(await axeViolations(page)).toEqual([]);

  await page.getByRole('button', { name: 'Pay in full' }).click();
  await expectState(
    shop,
    'Payment complete. Thank you!',
    'widget-paid',
    'Your order is paid. You can close this page.',
  );
  await expect(widget.getByText(/^Taking you back to the shop in \d{3} s\.$/).isVisible()).resolves.toBe(
    true,
  );
  // Proof of payment: the customer's transaction, linked on a block explorer (axe above saw it drawn).
  const [{ txid }] = (await harness.control('GET', `/invoices/${shop.foreignId}`)).body.deposits;
  const proof = widget.getByRole('link', { name: 'See your payment' });
  await expect(proof.getAttribute('href')).resolves.toBe(`https://mempool.space/tx/${txid}`);
  await expect(proof.getAttribute('rel')).resolves.toBe('noopener noreferrer');
  await expect(widget.getByText(txid, { exact: true }).isVisible()).resolves.toBe(true);
  await widget.getByRole('link', { name: 'Continue now' }).click();
  await page.waitForURL(/\/demo\/\?order=demo-[\w-]+&outcome=paid$/, { timeout: STATE_TIMEOUT });
  await page.getByRole('heading', { name: 'Thank you for your order' }).waitFor();
  await screenshot(page, 'demo-paid-page');
  expectNoSecretInUrls(shop);
  expect(shop.errors).toEqual([]);
});

test("a payment seen: while it confirms, the countdown follows the service's extended expiry", async () => {
  const shop = await checkout();
  // The service sees the payment and holds it for confirmation: it extends the timer to 24 hours.
  const seen = await harness.control('POST', `/invoices/${shop.foreignId}/pay`, { kind: 'full', hold: true });
  expect(seen.status).toBe(200);
  await expectState(shop, 'Payment received, waiting for confirmation', 'widget-confirming');
  await shop.widget.getByText(/^2[34]:\d\d:\d\d$/).waitFor({ timeout: STATE_TIMEOUT });
  // The service's callback reports the deposit with no confirmation yet; nothing asks the customer to pay again.
  await expect(definition(shop.widget, 'Network confirmations')).resolves.toBe('0');
  await expect(definition(shop.widget, 'Time left to confirm')).resolves.toMatch(/^2[34]:\d\d:\d\d$/);
  await expect(shop.widget.getByText('Amount to pay').count()).resolves.toBe(0);
  await expect(shop.widget.getByRole('img', { name: /QR code/ }).count()).resolves.toBe(0);
  expect(shop.errors).toEqual([]);
});

test('pay too little: underpaid, in words, and back to the shop page for a failed payment', async () => {
  const shop = await checkout();
  await shop.page.getByRole('button', { name: 'Pay too little' }).click();
  await expectState(
    shop,
    'Less than the amount due arrived, so your order did not go through.',
    'widget-underpaid',
    'The payment service will e-mail you how to get your money back. To buy, go back to the shop and order again.',
  );
  await shop.widget.getByRole('link', { name: 'Continue now' }).click();
  await shop.page.waitForURL(/\/demo\/\?order=demo-[\w-]+&outcome=unpaid$/, { timeout: STATE_TIMEOUT });
  await shop.page.getByRole('heading', { name: 'Your payment was not completed' }).waitFor();
  expectNoSecretInUrls(shop);
  expect(shop.errors).toEqual([]);
});

// A wallet button of the demo store, and the final state it leads the widget to: its status, screenshot and advice.
test.each([
  [
    'the timer runs out: expired',
    'Let the timer run out',
    'The time to pay has run out.',
    'widget-expired',
    'Your order did not go through. Do not send money to this address now. To buy, go back to the shop and order again.',
  ],
  [
    'paid late: expired, and the late payment said in words',
    'Pay late',
    'The time to pay has run out. Your payment arrived after the time ran out.',
    'widget-paid-late',
    'Your order did not go through on its own. The shop has been told of your payment and will contact you to complete the order or return your money.',
  ],
  [
    'pay too much: paid, and the extra said in words',
    'Pay too much',
    'Payment complete. Thank you! You sent more than was due.',
    'widget-paid-over',
    'Your order is paid. The shop has been told of the extra and can send it back: contact the shop if you do not hear from it.',
  ],
])('%s', async (_name, button, status, screenshotName, advice) => {
  const shop = await checkout();
  await shop.page.getByRole('button', { name: button }).click();
  await expectState(shop, status, screenshotName, advice);
  expect(shop.errors).toEqual([]);
});

test('the shop cancels: cancelled, and the customer told not to send money', async () => {
  const shop = await checkout();
  const cancelled = await harness.api('POST', `/invoices/${shop.foreignId}/cancel`, { token: 'admin' });
  expect(cancelled.status).toBe(200);
  await expectState(
    shop,
    'This payment was cancelled by the shop.',
    'widget-cancelled',
    'Your order did not go through. Do not send money to this address. If you already sent some, contact the shop.',
  );
  expect(shop.errors).toEqual([]);
});

/** The customer's view of an invoice waiting for 0.00045900 BTC for a 25.50 EUR order, as the API answers it. */
const AWAITING_BTC = {
  foreign_id: 'order-1',
  status: 'awaiting_payment',
  final: false,
  exception: null,
  title: 'Espresso machine',
  amount: '25.50000000',
  currency: 'EUR',
  pay_currency: 'BTC',
  pay_amount: '0.00045900',
  paid_amount: null,
  owed_amount: '0.00045900',
  pay_address: 'bc1qexampleaddress0000000000000000000000',
  pay_tag: null,
  payment_url: null,
  payment_uri: 'bitcoin:bc1qexampleaddress0000000000000000000000?amount=0.000459',
  rate: '55555.56',
  confirmations: null,
  expires_at: null,
  seconds_left: null,
  url_success: 'https://shop.example/paid',
  url_failed: 'https://shop.example/failed',
};

test('while the payment confirms, the confirmations the service reported are shown as they are', async () => {
  const shop = await checkout({
    publicInvoice: { ...AWAITING_BTC, status: 'confirming', paid_amount: '0.00045900', confirmations: 2 },
    firstStatus: 'Payment received, waiting for confirmation',
  });
  await expectState(shop, 'Payment received, waiting for confirmation', 'widget-confirmations');
  await expect(definition(shop.widget, 'Network confirmations')).resolves.toBe('2');
  await expect(definition(shop.widget, 'Payment seen')).resolves.toBe('0.000459 BTC');
  await expect(definition(shop.widget, 'Exchange rate')).resolves.toBe('1 BTC = 55,555.56 EUR');
  expect(shop.errors).toEqual([]);
});

test('failed: the customer told that the order did not go through and what to do', async () => {
  const shop = await checkout({
    publicInvoice: { ...AWAITING_BTC, status: 'failed', final: true, payment_uri: null },
    firstStatus: 'The payment could not be completed.',
  });
  await expectState(
    shop,
    'The payment could not be completed.',
    'widget-failed',
    'Your order did not go through. If you sent money, contact the shop. To buy, go back to the shop and try again.',
  );
  expect(shop.errors).toEqual([]);
});

test('a title holding markup is shown as text, never run', async () => {
  const title = '<img src=x onerror="window.pwned=1"><b>Bold</b>';
  const shop = await checkout({ title });
  await expect(shop.widget.getByRole('heading', { level: 2 }).textContent()).resolves.toBe(title);
  await expect(shop.widget.locator('img, b').count()).resolves.toBe(0);
  await expect(shop.page.evaluate(() => (globalThis as { pwned?: number }).pwned)).resolves.toBeUndefined();
  await screenshot(shop.page, 'widget-markup-title');
  expect(shop.errors).toEqual([]);
});

test('a payment page the service names is a link only when it is a web page', async () => {
  const awaitingChoice = {
    status: 'awaiting_payment',
    final: false,
    exception: null,
    title: 'Espresso machine',
    amount: '25.50000000',
    currency: 'EUR',
    pay_currency: null,
    pay_amount: null,
    owed_amount: null,
    pay_address: null,
    pay_tag: null,
    payment_uri: null,
    rate: null,
    confirmations: null,
    expires_at: null,
    url_success: 'https://shop.example/paid',
    url_failed: 'https://shop.example/failed',
  };
  const web = await checkout({
    publicInvoice: { ...awaitingChoice, payment_url: 'https://pay.example/i/1' },
  });
  await expect(
    web.widget.getByRole('link', { name: 'Open the payment page' }).getAttribute('href'),
  ).resolves.toBe('https://pay.example/i/1');

  const script = await checkout({
    publicInvoice: { ...awaitingChoice, payment_url: 'javascript:window.pwned=1' },
  });
  await script.widget.getByText('Choose how to pay on the payment page.').waitFor();
  await expect(script.widget.getByRole('link').count()).resolves.toBe(0);
  expect([...web.errors, ...script.errors]).toEqual([]);
});

test('without webhooks, the order events panel says how to switch them on', async () => {
  const shop = await checkout();
  const panel = shop.page.getByRole('region', { name: 'Order events' });
  await panel.getByRole('status').filter({ hasText: 'Webhooks are off' }).waitFor({ timeout: STATE_TIMEOUT });
  await expect(panel.locator('code').textContent()).resolves.toBe('STORE_WEBHOOK_URL=local npm start');
  await screenshot(shop.page, 'demo-events-webhooks-off');
  expect(await axeViolations(shop.page)).toEqual([]);
  expect(shop.errors).toEqual([]);
});

test('with no store backend, as in AWS (S3 answers 403 in XML), "Pay with crypto" says so in plain words', async () => {
  const { page } = await openPage(browser);
  await page.route('**/demo/api/checkout', (route) =>
    route.fulfill({
      status: 403,
      contentType: 'application/xml',
      body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code></Error>',
    }),
  );
  await page.goto(`${harness.stack.url}/demo/`);
  await page.getByRole('button', { name: 'Pay with crypto' }).click();
  const problem = page.getByRole('alert').filter({ hasText: 'no store server' });
  await problem.waitFor();
  await expect(problem.textContent()).resolves.toBe(
    'This copy of the demo store has no store server, so it cannot take orders. Run the demo locally with npm start to try a payment.',
  );
  await expect(page.getByRole('button', { name: 'Pay with crypto' }).isEnabled()).resolves.toBe(true);
  await screenshot(page, 'demo-no-backend');
  expect(await axeViolations(page)).toEqual([]);
});

/** The text of the definition a term names in the widget's list of facts. */
function definition(widget: Shop['widget'], term: string): Promise<string | null> {
  return widget.locator('dt', { hasText: term }).locator('xpath=following-sibling::dd[1]').textContent();
}
