// The reference page `npm start` serves at /docs, in a real browser: it renders, links within itself, and passes axe.
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

test('the reference page reads as a document: a heading per route, working links to the schemas, no axe violations', async () => {
  const { page, errors } = await openPage(browser);
  await page.goto(`${harness.stack.url}/docs`);
  await page.getByRole('heading', { level: 1, name: 'Merchant payments plugin' }).waitFor();
  const firstSchemaLink = page.locator('a[href^="#"]').first();
  const target = (await firstSchemaLink.getAttribute('href'))!.slice(1);
  await firstSchemaLink.click();
  await expect(page.locator(`[id="${target}"]`).isVisible()).resolves.toBe(true);
  await screenshot(page, 'docs');
  expect(await axeViolations(page)).toEqual([]);
  expect(errors).toEqual([]);
});
