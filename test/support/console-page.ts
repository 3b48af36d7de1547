// The operator console (web/apps/console) in a real browser, as the console's tests drive it.
import type { Browser, Page } from 'playwright-core';
import type { LocalStackOptions } from '../../local/stack';
import { checkoutBody, startHarness, type Harness } from './local-stack';
import { axeViolations, launchBrowser, openPage, screenshot } from './browser';
import { waitFor } from './wait';

/** One local stack and one browser for a test file, started before its tests and closed after them. */
export class ConsoleSuite {
  harness!: Harness;
  browser!: Browser;

  /** `options` for the local stack, made when the suite starts (after a receiver it names, say). */
  constructor(options: () => Promise<LocalStackOptions> | LocalStackOptions = () => ({})) {
    beforeAll(async () => {
      this.harness = await startHarness(await options());
      this.browser = await launchBrowser();
    });
    afterAll(async () => {
      await this.browser?.close();
      await this.harness?.close();
    });
  }

  /** The /console/ page, signed in with `token` (the admin token unless given). */
  async open(token = this.harness.stack.adminToken): Promise<{ page: Page; errors: string[] }> {
    const opened = await openPage(this.browser);
    await opened.page.goto(`${this.harness.stack.url}/console/`);
    await signIn(opened.page, token);
    return opened;
  }

  /** An order checked out by the storefront. */
  async checkout(foreignId: string, overrides: Record<string, unknown> = {}): Promise<void> {
    const { status } = await this.harness.api('POST', '/checkout', {
      token: 'storefront',
      body: checkoutBody(foreignId, overrides),
    });
    expect(status).toBe(201);
  }

  /** The invoice's status once it is `status`, or after a generous wait, the last one it showed. */
  async invoiceStatus(foreignId: string, status: string): Promise<string> {
    const { body } = await waitFor(
      () => this.harness.api('GET', `/invoices/${foreignId}`, { token: 'admin' }),
      ({ body }) => body.status === status,
      60_000,
    );
    return body.status;
  }
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
