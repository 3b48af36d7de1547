// The console's Export button: it downloads, as CSV, every order of the period the list shows, and those rows are
// the list's rows for that period.
import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { ConsoleSuite, expectAccessibleState } from '../support/console-page';

const suite = new ConsoleSuite();
const ids = ['export-1', 'export-2', 'export-3', 'export-4', 'export-5'];

beforeAll(async () => {
  for (const id of ids) await suite.checkout(id);
  // A title a spreadsheet would run as a formula, to see it neutralised in the file.
  await suite.checkout('export-formula', { title: '=1+2' });
  expect((await suite.harness.api('POST', '/invoices/export-2/cancel', { token: 'admin' })).status).toBe(200);
});

const pageSays = (page: Page, text: string) => page.getByRole('status').filter({ hasText: text }).waitFor();

/** The list's rows as the table shows them: order, title, amount, status. */
const shownRows = (page: Page) =>
  page
    .locator('tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => [...row.querySelectorAll('td')].slice(0, 4).map((cell) => cell.textContent ?? '')),
    );

/** RFC 4180 records of a small file whose cells hold no line breaks. */
function csvRecords(text: string): string[][] {
  expect(text.endsWith('\r\n')).toBe(true);
  return text
    .slice(0, -2)
    .split('\r\n')
    .map((line) => [...line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)].map(([, cell]) => unquote(cell)));
}

const unquote = (cell: string) => (cell.startsWith('"') ? cell.slice(1, -1).replace(/""/g, '"') : cell);

async function exportFile(page: Page): Promise<string[][]> {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export CSV' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('invoices.csv');
  return csvRecords(await readFile(await download.path(), 'utf8'));
}

test("Export downloads the period's orders as CSV, the same rows as the list shows", async () => {
  const { page, errors } = await suite.open();
  await pageSays(page, 'Page 1: 6 invoices.');
  // The orders' own days, not the clock's: a run may cross midnight.
  const days = await Promise.all(
    ['export-1', 'export-formula'].map(async (id) => {
      const order = await suite.harness.api('GET', `/invoices/${id}`, { token: 'admin' });
      return (order.body.created_at as string).slice(0, 10);
    }),
  );
  await page.getByLabel('From (UTC)').fill(days[0]);
  await page.getByLabel('To (UTC)').fill(days[1]);
  await pageSays(page, 'Page 1: 6 invoices.');
  await expectAccessibleState(page, 'invoices-period');
  const shown = await shownRows(page);

  const [header, ...rows] = await exportFile(page);
  await pageSays(page, 'Exported 6 orders of the period to invoices.csv.');
  const column = (name: string) => header.indexOf(name);
  expect(rows.map((row) => row[column('order_id')])).toEqual(shown.map(([order]) => order));
  for (const [index, row] of rows.entries()) {
    const [, title, amount, status] = shown[index];
    // A formula title is shown as it is on the page, and with a leading apostrophe in the file.
    expect(row[column('title')]).toBe(title.startsWith('=') ? `'${title}` : title);
    // Every order is 25.50 EUR: exact in the file, trimmed to the currency's places on the page.
    expect([row[column('amount')], row[column('currency')], amount]).toEqual([
      '25.50000000',
      'EUR',
      '25.50 EUR',
    ]);
    expect(row[column('status')].replace('_', ' ')).toBe(status.toLowerCase());
  }
  expect(rows.find((row) => row[column('order_id')] === 'export-2')?.[column('status')]).toBe('cancelled');

  // A period that ends the day before the first order: the list and the file are both empty.
  const yesterday = new Date(Date.parse(days[0]) - 86_400_000).toISOString().slice(0, 10);
  await page.getByLabel('From (UTC)').fill(yesterday);
  await page.getByLabel('To (UTC)').fill(yesterday);
  await pageSays(page, 'Page 1: 0 invoices.');
  expect(await exportFile(page)).toEqual([header]);
  await expectAccessibleState(page, 'invoices-empty-period');
  expect(errors).toEqual([]);
});

test('switching the period quickly, the list draws only the answer to the latest period, as Export downloads it', async () => {
  const { page, errors } = await suite.open();
  await pageSays(page, 'Page 1: 6 invoices.');
  // Each answer's body, once the page has read it: what follows in the page runs before the test's next look.
  await page.evaluate(() => {
    const read = Response.prototype.json;
    const answered: string[] = [];
    Object.assign(globalThis, { answered });
    Object.defineProperty(Response.prototype, 'json', {
      value: async function (this: Response) {
        const body: unknown = await read.call(this);
        answered.push(this.url);
        return body;
      },
    });
  });
  // The first period's answer (since 2001, open-ended: every order) is held until the second has been drawn.
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const asked = new Promise<string>((resolve) =>
    page.route(
      (url) =>
        url.pathname === '/invoices' &&
        url.searchParams.has('created_after') &&
        !url.searchParams.has('created_before'),
      async (route) => {
        resolve(route.request().url());
        await held;
        await route.continue();
      },
      { times: 1 },
    ),
  );
  await page.getByLabel('From (UTC)').fill('2001-01-01');
  const slowUrl = await asked;
  await page.getByLabel('To (UTC)').fill('2001-01-31');
  await pageSays(page, 'Page 1: 0 invoices.');

  release();
  await page.waitForFunction(
    (url) => (globalThis as unknown as { answered: string[] }).answered.includes(url),
    slowUrl,
  );
  expect(await page.getByRole('status').textContent()).toBe('Page 1: 0 invoices.');
  expect(await shownRows(page)).toEqual([]);
  await page.getByText('No invoices yet.').waitFor();
  expect(await page.locator('[aria-busy]').count()).toBe(0);
  // The file is the period shown: only its header row.
  const [header, ...rows] = await exportFile(page);
  expect(header[0]).toBe('order_id');
  expect(rows).toEqual([]);
  expect(errors).toEqual([]);
});
