// The API reference at /docs/ in a real browser: openapi.json rendered by Scalar from our own files, with a
// navigation to every route, laid out within a 1,280 px laptop screen; the site's root and /docs lead there.
import type { Browser } from 'playwright-core';
import { startHarness, type Harness } from '../support/local-stack';
import { axeViolations, launchBrowser, openPage, screenshot } from '../support/browser';

let harness: Harness;
let browser: Browser;

beforeAll(async () => {
  harness = await startHarness();
  browser = await launchBrowser();
});

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

test('the reference renders with a navigation, fits a 1,280 px screen, loads only our files and passes axe', async () => {
  const { page, errors } = await openPage(browser);
  await page.setViewportSize({ width: 1280, height: 800 });
  const origin = new URL(harness.stack.url).origin;
  const elsewhere: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:'))
      elsewhere.push(request.url());
  });
  // The address `npm start` prints first leads here.
  await page.goto(`${harness.stack.url}/`);
  expect(new URL(page.url()).pathname).toBe('/docs/');
  // Scalar's sidebar: every group of routes by who may call them, each route by its summary, linked.
  const navigation = page.getByRole('complementary', { name: 'Sidebar for Merchant payments plugin' });
  await navigation.getByRole('link', { name: /Poll an invoice/ }).waitFor();
  for (const group of ['storefront', 'admin', 'service', 'customer', 'public'])
    await expect(navigation.textContent()).resolves.toContain(group);
  // As it first renders; Scalar's sections opened later have faults of its own.
  expect(await axeViolations(page)).toEqual([]);
  await navigation.getByRole('link', { name: /Exchange rate estimates/ }).click();
  await page.getByRole('heading', { name: 'Exchange rate estimates' }).first().waitFor();
  await expect(
    page.getByRole('heading', { name: 'Exchange rate estimates' }).first().isVisible(),
  ).resolves.toBe(true);
  const width = await page.evaluate(() => (globalThis as any).document.documentElement.scrollWidth as number);
  expect(width).toBeLessThanOrEqual(1280);
  await screenshot(page, 'docs');
  expect(elsewhere).toEqual([]);
  expect(errors).toEqual([]);
});
