// The console's invoice list over more invoices than a page: newest first, forward and back through the API's
// cursors, and the status filter.
import type { Page } from 'playwright-core';
import { ConsoleSuite, expectAccessibleState } from '../support/console-page';

const suite = new ConsoleSuite();
const ids = Array.from({ length: 30 }, (_, index) => `page-${String(index + 1).padStart(2, '0')}`);
const cancelled = ['page-03', 'page-17', 'page-29'];

beforeAll(async () => {
  // One after the other, so that creation order is the order of the ids.
  for (const id of ids) await suite.checkout(id);
  for (const id of cancelled) {
    expect((await suite.harness.api('POST', `/invoices/${id}/cancel`, { token: 'admin' })).status).toBe(200);
  }
});

const shownIds = (page: Page) => page.locator('tbody tr td:first-child').allTextContents();
const pageSays = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

test('30 invoices read newest first, twenty a page, forward and back; the filter shows only its status', async () => {
  const { page, errors } = await suite.open();
  const newestFirst = [...ids].reverse();

  await pageSays(page, 'Page 1: 20 invoices, more on the next page.');
  expect(await shownIds(page)).toEqual(newestFirst.slice(0, 20));
  await expect(page.getByRole('button', { name: 'Previous page' }).isDisabled()).resolves.toBe(true);
  await expect(page.getByRole('link', { name: 'Invoices' }).getAttribute('aria-current')).resolves.toBe(
    'page',
  );
  await expectAccessibleState(page, 'invoices');

  await page.getByRole('button', { name: 'Next page' }).click();
  await pageSays(page, 'Page 2: 10 invoices.');
  expect(await shownIds(page)).toEqual(newestFirst.slice(20));
  await expect(page.getByRole('button', { name: 'Next page' }).isDisabled()).resolves.toBe(true);
  await expectAccessibleState(page, 'invoices-last-page');

  await page.getByRole('button', { name: 'Previous page' }).click();
  await pageSays(page, 'Page 1: 20 invoices, more on the next page.');
  expect(await shownIds(page)).toEqual(newestFirst.slice(0, 20));

  await page.getByLabel('Status').selectOption({ label: 'Cancelled' });
  await pageSays(page, 'Page 1: 3 cancelled invoices.');
  expect(await shownIds(page)).toEqual([...cancelled].reverse());
  await expectAccessibleState(page, 'invoices-cancelled');

  // An invoice and back: the list is where it was left.
  await page.getByRole('link', { name: 'page-17' }).click();
  await pageSays(page, 'Invoice page-17 loaded.');
  await page.getByRole('link', { name: '← All invoices' }).click();
  await pageSays(page, 'Page 1: 3 cancelled invoices.');
  await expect(page.getByLabel('Status').inputValue()).resolves.toBe('cancelled');
  expect(errors).toEqual([]);
});
