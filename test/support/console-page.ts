// The operator console (web/apps/console) in a real browser, as the console's tests drive it.
import type { Browser, Page } from 'playwright-core';
import type { Harness } from './local-stack';
import { axeViolations, openPage, screenshot } from './browser';

/** Opens /console/ and signs in with `token` (the admin token unless given); answers once the invoices show. */
export async function openConsole(
  browser: Browser,
  harness: Harness,
  token = harness.stack.adminToken,
): Promise<{ page: Page; errors: string[] }> {
  const opened = await openPage(browser);
  await opened.page.goto(`${harness.stack.url}/console/`);
  await signIn(opened.page, token);
  return opened;
}

export async function signIn(page: Page, token: string): Promise<void> {
  await page.getByLabel('Admin token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** Each state of the console gets a screenshot to look at and must pass axe. */
export async function expectAccessibleState(page: Page, name: string): Promise<void> {
  await screenshot(page, `console-${name}`);
  expect(await axeViolations(page)).toEqual([]);
}
