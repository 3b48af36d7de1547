// The console with several stores (issue 33), in a real browser against the local stack: the platform token's
// store switcher and Stores pages (a new store's tokens shown once, rotating, disabling and enabling), and a store's
// own admin token, which sees its store alone. Every state passes axe and leaves a screenshot.
import { startWebhookReceiver, type WebhookReceiver } from '../../local/webhook-receiver';
import { newWebhookSecret } from '../../webhooks/signing';
import type { Page } from 'playwright-core';
import { openPage } from '../support/browser';
import { ConsoleSuite, expectAccessibleState, signIn } from '../support/console-page';
import { checkoutBody } from '../support/local-stack';

// Stores may have webhook endpoints only where the deployment's records make webhook events.
const webhookSecret = newWebhookSecret();
let receiver: WebhookReceiver | undefined;
const suite = new ConsoleSuite(async () => {
  receiver = await startWebhookReceiver(webhookSecret);
  return { webhooks: { url: receiver.url, secret: webhookSecret } };
});
afterAll(async () => receiver?.close());
const platformToken = () => suite.harness.stack.platformToken;

interface MadeStore {
  storefront_token: string;
  admin_token: string;
}

/** A store made through the API with the platform token. */
async function newStore(id: string): Promise<MadeStore> {
  const made = await suite.harness.api('POST', '/stores', {
    token: platformToken(),
    body: { id, name: `Shop ${id}` },
  });
  expect(made.status).toBe(201);
  return made.body;
}

/** A store made through the API with the platform token, and one order checked out with its storefront token. */
async function storeWithOrder(id: string, foreignId: string): Promise<MadeStore> {
  const made = { body: await newStore(id) };
  const checkout = await suite.harness.api('POST', '/checkout', {
    token: made.body.storefront_token,
    body: checkoutBody(foreignId),
  });
  expect(checkout.status).toBe(201);
  return made.body;
}

const says = (page: Page, text: string | RegExp) =>
  page.getByRole('status').filter({ hasText: text }).waitFor();
/** Waits for the orders list to show `foreignId`'s row. */
const shows = (page: Page, foreignId: string) =>
  page.getByRole('cell', { name: foreignId, exact: true }).waitFor();
const shownIds = (page: Page) => page.locator('tbody tr td:first-child').allTextContents();
const switcher = (page: Page) => page.getByRole('combobox', { name: 'Store' });

const focused = (page: Page) =>
  page.evaluate(() => (globalThis as any).document.activeElement?.textContent as string | undefined);

/** What a page holds that outlives it: its URL, web storage and cookies. */
const kept = (page: Page) =>
  page.evaluate(() => {
    const { localStorage, sessionStorage, document, location } = globalThis as any;
    return {
      url: location.href as string,
      storage: JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie,
    };
  });

test('the platform token gets the store switcher and the Stores page; a new store’s secrets show once', async () => {
  const { page, errors } = await suite.open(platformToken());
  await says(page, /^Page 1:/);
  await switcher(page).waitFor();
  await expect(switcher(page).inputValue()).resolves.toBe('default');
  await expectAccessibleState(page, 'stores-platform-signed-in');

  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Stores' }).click();
  await page.getByRole('heading', { level: 1, name: 'Stores' }).waitFor();
  await page
    .getByRole('link', { name: 'default' })
    .or(page.getByRole('cell', { name: 'default' }))
    .first()
    .waitFor();
  await expectAccessibleState(page, 'stores-list');

  await page.getByRole('link', { name: 'New store' }).click();
  await page.getByRole('heading', { level: 1, name: 'New store' }).waitFor();
  // An id taken is refused with the API's reason, and nothing is made.
  await page.getByLabel('Store id').fill('default');
  await page.getByLabel('Name').fill('Made in the console');
  await page.getByRole('button', { name: 'Create store' }).click();
  await page.getByRole('alert').filter({ hasText: 'store_exists' }).waitFor();
  await page.getByLabel('Store id').fill('made-in-console');
  await page.getByLabel('Webhook URL (optional)').fill('https://shop.example/webhooks');
  await expectAccessibleState(page, 'stores-new');
  await page.getByRole('button', { name: 'Create store' }).click();

  const once = page.getByRole('region', { name: 'The store’s tokens and webhook secret' });
  await once.waitFor();
  await expect(once.textContent()).resolves.toContain('Shown once.');
  // A keyboard or screen reader user lands on the secrets.
  expect(await focused(page)).toBe('The store’s tokens and webhook secret');
  const secrets = await once.locator('.secret-value').allTextContents();
  expect(secrets).toHaveLength(3);
  const [storefrontToken, adminToken, webhookSecret] = secrets;
  expect(webhookSecret).toMatch(/^whsec_/);
  await page.getByRole('heading', { level: 1, name: 'Made in the console' }).waitFor();
  await expectAccessibleState(page, 'stores-created');

  // The copy button puts the exact token on the clipboard.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
    origin: suite.harness.stack.url,
  });
  await once.getByRole('button', { name: 'Copy admin token' }).click();
  await says(page, 'Admin token copied.');
  await expect(page.evaluate(() => (globalThis as any).navigator.clipboard.readText())).resolves.toBe(
    adminToken,
  );

  // The tokens are the store's: its storefront token checks out, its admin token reads its own orders.
  const checkout = await suite.harness.api('POST', '/checkout', {
    token: storefrontToken,
    body: checkoutBody('made-in-console-1'),
  });
  expect(checkout.status).toBe(201);
  const orders = await suite.harness.api('GET', '/invoices', { token: adminToken });
  expect(orders.body.data.map((invoice: { foreign_id: string }) => invoice.foreign_id)).toEqual([
    'made-in-console-1',
  ]);

  // Neither the URL nor storage holds a secret; the store's page, visited again, shows none.
  const after = await kept(page);
  expect(after.url).toMatch(/#stores\/made-in-console$/);
  for (const secret of secrets) {
    expect(after.url).not.toContain(secret);
    expect(after.storage).not.toContain(secret);
  }
  const noSecretShown = async (state: string) => {
    const text = await page.locator('body').textContent();
    for (const secret of secrets)
      expect({ state, shown: text!.includes(secret) }).toEqual({ state, shown: false });
  };
  await page.getByRole('link', { name: '← All stores' }).click();
  await says(page, /^Page 1: \d+ stores/);
  await page.getByRole('link', { name: 'Made in the console' }).click();
  await says(page, 'Store made-in-console loaded.');
  await noSecretShown('revisited');
  await page.goBack();
  await page.goBack();
  await page
    .getByRole('heading', { level: 1, name: /^(Made in the console|Store made-in-console)$/ })
    .waitFor();
  await noSecretShown('back');
  await expect(page.getByRole('heading', { level: 1, name: 'New store' }).count()).resolves.toBe(0);

  // A reload forgets the token; signing in again shows the store without its secrets.
  await page.reload();
  await signIn(page, platformToken());
  await says(page, 'Store made-in-console loaded.');
  await noSecretShown('reloaded');
  const settings = page.getByRole('region', { name: 'Settings' });
  await expect(settings.textContent()).resolves.toContain('https://shop.example/webhooks');

  // From the store's page to its orders: the switcher follows.
  await page.getByRole('button', { name: 'Open its orders' }).click();
  await shows(page, 'made-in-console-1');
  expect(page.url()).toContain('?store=made-in-console#invoices');
  await expect(switcher(page).inputValue()).resolves.toBe('made-in-console');
  expect(errors.filter((error) => !error.includes('status of 409'))).toEqual([]);
});

test('editing a store changes its name and webhook URL; its processing keys are taken but never shown', async () => {
  await newStore('editing-shop');
  const { page, errors } = await suite.open(platformToken());
  await page.evaluate(() => ((globalThis as any).location.hash = '#stores/editing-shop'));
  await says(page, 'Store editing-shop loaded.');
  await page.getByRole('link', { name: 'Edit settings' }).click();
  await page.getByRole('heading', { level: 1, name: 'Edit Shop editing-shop' }).waitFor();
  await page.getByLabel('Name').fill('Edited shop');
  await page.getByLabel('Webhook URL').fill('https://edited.example/hooks');
  await page.getByLabel('API key').fill('edited-api-key');
  await page.getByLabel('Secret key').fill('edited-secret-key');
  await page.getByLabel('Payment service URL').fill('https://processing.example');
  await expectAccessibleState(page, 'stores-edit');
  await page.getByRole('button', { name: 'Save changes' }).click();

  await says(page, 'Edited shop is saved.');
  await page.getByRole('heading', { level: 1, name: 'Edited shop' }).waitFor();
  const settings = page.getByRole('region', { name: 'Settings' });
  const text = await settings.textContent();
  expect(text).toContain('https://edited.example/hooks');
  expect(text).toContain('Its own merchant account');
  expect(text).toContain('/callbacks/editing-shop');
  const body = await page.locator('body').textContent();
  expect(body).not.toContain('edited-secret-key');
  expect(body).not.toContain('edited-api-key');
  await expect(
    switcher(page).locator('option', { hasText: 'Edited shop (editing-shop)' }).count(),
  ).resolves.toBe(1);

  // The edit form starts empty for the keys, and an empty webhook URL clears it.
  await page.getByRole('link', { name: 'Edit settings' }).click();
  await expect(page.getByLabel('Secret key').inputValue()).resolves.toBe('');
  await page.getByLabel('Webhook URL').fill('');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await says(page, 'Edited shop is saved.');
  await expect(settings.textContent()).resolves.toContain('None: the store gets no webhooks');
  expect(errors).toEqual([]);
});

test('switching stores changes the orders shown; Back, Forward and a reload keep the chosen store', async () => {
  await suite.checkout('order-of-default');
  await storeWithOrder('second-shop', 'order-of-second');
  const { page, errors } = await suite.open(platformToken());
  await shows(page, 'order-of-default');
  expect(await shownIds(page)).not.toContain('order-of-second');

  // By keyboard: the choice takes effect on Switch, and the focus moves to the view's heading.
  await switcher(page).selectOption({ label: 'Shop second-shop (second-shop)' });
  await switcher(page).focus();
  await page.keyboard.press('Tab');
  expect(await focused(page)).toBe('Switch');
  await page.keyboard.press('Enter');
  await shows(page, 'order-of-second');
  expect(await focused(page)).toBe('Invoices');
  expect(await shownIds(page)).toEqual(['order-of-second']);
  expect(page.url()).toContain('?store=second-shop#invoices');
  await expectAccessibleState(page, 'stores-switched');

  // The order opens in the store it belongs to.
  await page.getByRole('link', { name: 'order-of-second' }).click();
  await says(page, 'Invoice order-of-second loaded.');

  await page.goBack();
  await shows(page, 'order-of-second');
  await page.goBack();
  await shows(page, 'order-of-default');
  await expect(switcher(page).inputValue()).resolves.toBe('default');
  expect(await shownIds(page)).not.toContain('order-of-second');
  await page.goForward();
  await shows(page, 'order-of-second');
  await expect(switcher(page).inputValue()).resolves.toBe('second-shop');
  expect(await shownIds(page)).toEqual(['order-of-second']);

  await page.reload();
  await signIn(page, platformToken());
  await shows(page, 'order-of-second');
  expect(await shownIds(page)).toEqual(['order-of-second']);
  await expect(switcher(page).inputValue()).resolves.toBe('second-shop');

  // A store on the deployment's shared account has no balance of its own; its webhook URL is a store setting.
  await page.getByRole('link', { name: 'Balances' }).click();
  await page.getByText(/^This store shares the deployment’s payment account/).waitFor();
  await expect(page.getByRole('button', { name: 'Show live balance' }).count()).resolves.toBe(0);
  await expectAccessibleState(page, 'stores-shared-balances');
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByText(/^No webhook deliveries yet/).waitFor();
  await expect(page.getByText(/^No webhook deliveries yet/).textContent()).resolves.toContain(
    'in the store’s settings, on the Stores page',
  );
  expect(errors.filter((error) => !error.includes('status of 409'))).toEqual([]);
});

test('a store’s admin token opens its own store alone, with no switcher and no Stores page', async () => {
  const store = await storeWithOrder('own-admin-shop', 'order-of-own-admin');
  await suite.checkout('not-for-own-admin');
  const { page, errors } = await openPage(suite.browser);
  // A URL naming another store means nothing to a store's own token.
  await page.goto(`${suite.harness.stack.url}/console/?store=default#stores`);
  await signIn(page, store.admin_token);
  await says(page, 'Page 1: 1 invoices.');
  expect(await shownIds(page)).toEqual(['order-of-own-admin']);
  await expect(switcher(page).count()).resolves.toBe(0);
  await expect(page.getByRole('link', { name: 'Stores' }).count()).resolves.toBe(0);
  await expect(page.locator('header').textContent()).resolves.toContain('Store own-admin-shop');
  expect(page.url()).not.toContain('?store=');
  await expectAccessibleState(page, 'stores-own-admin');

  // Another store's order is not found, as an order that does not exist.
  await page.evaluate(() => ((globalThis as any).location.hash = '#invoices/not-for-own-admin'));
  await page.getByRole('alert').filter({ hasText: 'not_found' }).waitFor();
  expect(errors.filter((error) => !error.includes('status of 404'))).toEqual([]);
});

test('rotating shows the new tokens once and says when the old ones stop working', async () => {
  const store = await storeWithOrder('rotating-shop', 'order-of-rotating');
  const { page, errors } = await suite.open(platformToken());
  await page.evaluate(() => ((globalThis as any).location.hash = '#stores/rotating-shop'));
  await says(page, 'Store rotating-shop loaded.');

  await page.getByRole('button', { name: 'Rotate tokens…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Rotate the tokens of Shop rotating-shop?' });
  await expect(dialog.getByLabel('Keep the old tokens working').inputValue()).resolves.toBe('86400');
  await expectAccessibleState(page, 'stores-rotate-dialog');
  await dialog.getByRole('button', { name: 'Rotate tokens' }).click();
  const once = page.getByRole('region', { name: 'The new tokens' });
  await once.waitFor();
  await expect(once.textContent()).resolves.toMatch(
    /The old tokens keep working until .+, then they are refused\./,
  );
  const [storefrontToken, adminToken] = await once.locator('.secret-value').allTextContents();
  await expectAccessibleState(page, 'stores-rotated');
  const reads = async (token: string) => (await suite.harness.api('GET', '/invoices', { token })).status;
  expect(await reads(adminToken)).toBe(200);
  expect(await reads(store.admin_token)).toBe(200);
  expect(storefrontToken).not.toBe(store.storefront_token);

  // Rotated again with no grace: the tokens just shown stop at once.
  await page.getByRole('button', { name: 'Rotate tokens…' }).click();
  await dialog.getByLabel('Keep the old tokens working').selectOption({ label: 'Not at all: they stop now' });
  await dialog.getByRole('button', { name: 'Rotate tokens' }).click();
  await once.filter({ hasText: 'The old tokens stopped working now.' }).waitFor();
  const [, newest] = await once.locator('.secret-value').allTextContents();
  expect(await reads(adminToken)).toBe(401);
  expect(await reads(newest)).toBe(200);
  expect(errors).toEqual([]);
});

test('disabling asks first, refuses the store’s tokens, and enabling lets them in again', async () => {
  const store = await storeWithOrder('pausing-shop', 'order-of-pausing');
  const { page, errors } = await suite.open(platformToken());
  await page.evaluate(() => ((globalThis as any).location.hash = '#stores/pausing-shop'));
  await says(page, 'Store pausing-shop loaded.');

  await page.getByRole('button', { name: 'Disable store…' }).click();
  const disabling = page.getByRole('dialog', { name: 'Disable Shop pausing-shop?' });
  await expect(disabling.textContent()).resolves.toContain('Orders already made still get');
  await expectAccessibleState(page, 'stores-disable-dialog');
  await disabling.getByRole('button', { name: 'Keep it active' }).click();
  await disabling.waitFor({ state: 'detached' });
  expect((await suite.harness.api('GET', '/invoices', { token: store.admin_token })).status).toBe(200);

  await page.getByRole('button', { name: 'Disable store…' }).click();
  await disabling.getByRole('button', { name: 'Disable store' }).click();
  await says(page, 'Shop pausing-shop is disabled.');
  await expect(page.locator('.invoice-sub .badge').textContent()).resolves.toBe('Disabled');
  await expectAccessibleState(page, 'stores-disabled');
  const refused = await suite.harness.api('GET', '/invoices', { token: store.admin_token });
  expect({ status: refused.status, code: refused.body.error.code }).toEqual({
    status: 403,
    code: 'store_disabled',
  });

  // The store's own admin token is turned away at sign-in with the reason.
  const own = await openPage(suite.browser);
  await own.page.goto(`${suite.harness.stack.url}/console/`);
  await signIn(own.page, store.admin_token);
  await own.page.getByRole('alert').filter({ hasText: 'store_disabled' }).waitFor();

  await page.getByRole('button', { name: 'Enable store…' }).click();
  const enabling = page.getByRole('dialog', { name: 'Enable Shop pausing-shop?' });
  await enabling.getByRole('button', { name: 'Enable store' }).click();
  await says(page, 'Shop pausing-shop is enabled.');
  await expect(page.locator('.invoice-sub .badge').textContent()).resolves.toBe('Active');
  expect((await suite.harness.api('GET', '/invoices', { token: store.admin_token })).status).toBe(200);
  expect(errors).toEqual([]);
  expect(own.errors.filter((error) => !error.includes('status of 403'))).toEqual([]);
});

test('at 390 px the switcher, the Stores pages and the shown-once secrets never scroll sideways', async () => {
  const { page, errors } = await openPage(suite.browser);
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${suite.harness.stack.url}/console/`);
  await signIn(page, platformToken());
  await says(page, /^Page 1:/);
  const overflow = () =>
    page.evaluate(() => {
      const { documentElement } = (globalThis as any).document;
      return documentElement.scrollWidth - documentElement.clientWidth;
    });
  expect(await overflow()).toBe(0);
  await page.evaluate(() => ((globalThis as any).location.hash = '#stores'));
  await says(page, /^Page 1: \d+ stores/);
  expect(await overflow()).toBe(0);
  await page.evaluate(() => ((globalThis as any).location.hash = '#new-store'));
  await page.getByLabel('Store id').fill('narrow-shop');
  await page.getByLabel('Name').fill('A shop with a rather long name for a phone screen');
  await page.getByLabel('It has its own merchant account').check();
  await page.getByLabel('API key').fill('narrow-api-key');
  await page.getByLabel('Secret key').fill('narrow-secret-key');
  await page.getByLabel('Payment service URL').fill('https://processing.example');
  expect(await overflow()).toBe(0);
  await page.getByRole('button', { name: 'Create store' }).click();
  await page.getByRole('region', { name: 'The store’s tokens and webhook secret' }).waitFor();
  await expectAccessibleState(page, 'stores-narrow-created');
  expect(await overflow()).toBe(0);
  // An own account's callback URL is shown, to give the payment service.
  const settings = page.getByRole('region', { name: 'Settings' });
  await expect(settings.textContent()).resolves.toContain('/callbacks/narrow-shop');
  await expect(settings.textContent()).resolves.not.toContain('narrow-secret-key');
  expect(errors).toEqual([]);
});

test('the Stores page reads the list twenty at a time, forward and back', async () => {
  const listed = async () => {
    let count = 0;
    let cursor: string | null = '';
    while (cursor !== null) {
      const page: { body: { data: unknown[]; next_cursor: string | null } } = await suite.harness.api(
        'GET',
        `/stores?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        { token: platformToken() },
      );
      count += page.body.data.length;
      cursor = page.body.next_cursor;
    }
    return count;
  };
  for (let made = await listed(), n = 1; made < 23; made++, n++) {
    const answer = await suite.harness.api('POST', '/stores', {
      token: platformToken(),
      body: { id: `paged-${n}`, name: `Paged shop ${n}` },
    });
    expect(answer.status).toBe(201);
  }
  const total = await listed();
  const { page, errors } = await suite.open(platformToken());
  await says(page, /^Page 1:/);
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Stores' }).click();
  await says(page, 'Page 1: 20 stores, more on the next page.');
  const rows = page.getByRole('table', { name: /^Stores, page/ }).locator('tbody tr');
  await expect(rows.count()).resolves.toBe(20);
  await page.getByRole('button', { name: 'Next page' }).click();
  await says(page, `Page 2: ${total - 20} stores.`);
  await expect(page.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true);
  await expectAccessibleState(page, 'stores-list-page-2');
  await page.getByRole('button', { name: 'Previous page' }).click();
  await says(page, 'Page 1: 20 stores, more on the next page.');
  expect(errors).toEqual([]);
});
