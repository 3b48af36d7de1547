// The demo store as the shop's webhook endpoint: its page lists the order's events as the endpoint verifies them,
// in seq order, on the product page and on the page the customer lands on after paying.
import type { Page } from 'playwright-core';
import { axeViolations, openPage, screenshot } from '../support/browser';
import { startDemoRig, type DemoRig } from '../support/demo-rig';

let rig: DemoRig;

beforeAll(async () => {
  rig = await startDemoRig();
});

afterAll(() => rig?.close());

/** Generous: the widget and the panel poll with backoff (at most 10 s apart) on a busy machine. */
const STATE_TIMEOUT = 90_000;

const eventRows = (page: Page) =>
  page.getByRole('region', { name: 'Order events' }).getByRole('table').locator('tbody tr');

async function expectAccessible(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  expect(await axeViolations(page)).toEqual([]);
}

test('pay in full: the order events panel shows awaiting_payment, then everything up to invoice.paid, in seq order', async () => {
  const { page, errors } = await openPage(rig.browser);
  await page.goto(`${rig.harness.stack.url}/demo/`);
  const answered = page.waitForResponse((response) => response.url().endsWith('/demo/api/checkout'));
  await page.getByRole('button', { name: 'Pay with crypto' }).click();
  const { foreign_id: foreignId } = await (await answered).json();
  const panel = page.getByRole('region', { name: 'Order events' });
  await panel.getByRole('cell', { name: 'invoice.awaiting_payment' }).waitFor({ timeout: STATE_TIMEOUT });
  await expect(panel.getByRole('caption').textContent()).resolves.toBe(
    `Webhook events of order ${foreignId}, oldest first`,
  );
  await expectAccessible(page, 'demo-events-awaiting-payment');

  await page.getByRole('button', { name: 'Pay in full' }).click();
  // The widget takes the customer to the shop's page for paid orders, which lists the order's events too.
  await page.waitForURL(/\/demo\/\?order=demo-[\w-]+&outcome=paid$/, { timeout: STATE_TIMEOUT });
  await page
    .getByRole('region', { name: 'Order events' })
    .getByRole('cell', { name: 'invoice.paid' })
    .waitFor({ timeout: STATE_TIMEOUT });
  const rows = await eventRows(page).evaluateAll((trs) =>
    trs.map((tr) => [...(tr as any).cells].map((cell: any) => cell.textContent)),
  );
  const types = rows.map(([type]) => type);
  const seqs = rows.map(([, seq]) => Number(seq));
  expect(types[0]).toBe('invoice.awaiting_payment');
  expect(types.at(-1)).toBe('invoice.paid');
  expect(seqs).toEqual(seqs.map((_, index) => index + 1));
  // Exactly what the endpoint verified for the order, each event once.
  expect(types).toEqual(rig.endpoint.events.of(foreignId).map((event) => event.type));
  await page.getByRole('status').filter({ hasText: 'received, the latest invoice.paid' }).waitFor();
  await expectAccessible(page, 'demo-events-paid');
  expect(errors).toEqual([]);
});
