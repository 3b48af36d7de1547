// Every page on a 390 px phone: nothing scrolls sideways, the demo's order events table and the console's tables
// included (a wide table scrolls within its own box).
import type { Page } from 'playwright-core';
import { openPage, screenshot } from '../support/browser';
import { signIn } from '../support/console-page';
import { checkoutBody } from '../support/local-stack';
import { startDemoRig, type DemoRig } from '../support/demo-rig';

let rig: DemoRig;

beforeAll(async () => {
  rig = await startDemoRig();
});

afterAll(() => rig?.close());

const PHONE_WIDTH = 390;

/** How far the page reaches past the screen's right edge, in CSS pixels; 0 when nothing scrolls sideways. */
const overflow = (page: Page) =>
  page.evaluate(
    (width) => (globalThis as any).document.documentElement.scrollWidth - width,
    PHONE_WIDTH,
  ) as Promise<number>;

async function expectNoSidewaysScroll(page: Page, name: string): Promise<void> {
  await screenshot(page, `narrow-${name}`);
  expect({ name, overflow: await overflow(page) }).toEqual({ name, overflow: 0 });
}

test('no page scrolls sideways at 390 px', async () => {
  const { page, errors } = await openPage(rig.browser);
  await page.setViewportSize({ width: PHONE_WIDTH, height: 844 });
  const url = rig.harness.stack.url;

  await page.goto(`${url}/demo/`);
  await page.getByRole('button', { name: 'Pay with crypto' }).waitFor();
  await expectNoSidewaysScroll(page, 'demo');
  await page.getByRole('button', { name: 'Pay with crypto' }).click();
  const events = page.getByRole('region', { name: 'Order events' });
  await events.getByRole('cell', { name: 'invoice.awaiting_payment' }).waitFor({ timeout: 90_000 });
  await expectNoSidewaysScroll(page, 'demo-events');

  const { status } = await rig.harness.api('POST', '/checkout', {
    token: 'storefront',
    body: checkoutBody('narrow-order', { title: 'A long title for a narrow screen' }),
  });
  expect(status).toBe(201);
  await page.goto(`${url}/console/`);
  await signIn(page, rig.harness.stack.adminToken);
  await page.getByRole('link', { name: 'narrow-order' }).waitFor();
  await expectNoSidewaysScroll(page, 'console-invoices');
  await page.getByRole('link', { name: 'narrow-order' }).click();
  await page.getByRole('status').filter({ hasText: 'Invoice narrow-order loaded.' }).waitFor();
  await expectNoSidewaysScroll(page, 'console-invoice');
  await page.getByRole('link', { name: 'Balances' }).click();
  await page.getByRole('heading', { level: 1, name: 'Balances' }).waitFor();
  await expectNoSidewaysScroll(page, 'console-balances');
  await page.getByRole('link', { name: 'Webhooks' }).click();
  await page.getByRole('heading', { level: 1, name: 'Webhook deliveries' }).waitFor();
  await expectNoSidewaysScroll(page, 'console-webhooks');

  await page.goto(`${url}/docs/`);
  await page.getByRole('heading', { name: 'Merchant payments plugin' }).first().waitFor();
  await expectNoSidewaysScroll(page, 'docs');
  expect(errors).toEqual([]);
});
