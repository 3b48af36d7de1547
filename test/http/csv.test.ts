// The accounting exports' CSV: quoting per RFC 4180, formula cells neutralised, and a large period paged with no
// row missing or repeated, each page far under Lambda's 6 MB answer.
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import * as path from 'node:path';
import type { InvoiceDetails, InvoiceRecord } from '../../domain/model';
import type { CreatedQuery, ListPosition, NewestFirst } from '../../domain/ports';
import { csvCell, csvLine } from '../../http/csv';
import { decodeCursor } from '../../http/cursor';
import {
  csvAnswer,
  EXPORT_ROWS,
  INVOICE_COLUMNS,
  invoiceExportPage,
  REFUND_COLUMNS,
} from '../../http/exports';

/** A cell a spreadsheet would run: a formula character first, after any spaces or quotes it may drop. */
const FORMULA = /^[ "]*[=+\-@\t\r]/;

/** RFC 4180's grammar, read strictly: CRLF after every record, quotes only around a whole field. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field: string;
  let record: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (text[i] === '"') {
      const end = /^"((?:[^"]|"")*)"/.exec(text.slice(i));
      if (!end) throw new Error(`unclosed quote at ${i}`);
      field = end[1].replace(/""/g, '"');
      i += end[0].length;
    } else {
      const plain = /^[^",\r\n]*/.exec(text.slice(i))![0];
      field = plain;
      i += plain.length;
    }
    record.push(field);
    if (text[i] === ',') i += 1;
    else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else throw new Error(`unexpected ${JSON.stringify(text[i])} at ${i}`);
  }
  expect(record).toEqual([]);
  return records;
}

describe('cells', () => {
  test('a cell with a comma, a quote or a line break is quoted, its quotes doubled; others are as they are', () => {
    const line = csvLine(['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', '', null, 7, '0.00046000']);
    expect(line).toBe('plain,"a,b","say ""hi""","two\nlines","cr\r\nlf",,,7,0.00046000\r\n');
    expect(parseCsv(line)).toEqual([
      ['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\r\nlf', '', '', '7', '0.00046000'],
    ]);
  });

  test('a cell a spreadsheet would run as a formula starts with an apostrophe, whatever follows', () => {
    for (const formula of ['=1+1', '+1', '-2+3', '@SUM(A1)', '=HYPERLINK("x","y")']) {
      const [[cell]] = parseCsv(csvLine([formula]));
      expect(cell).toBe(`'${formula}`);
    }
    // A tab or CR before a formula: the cell starts with an apostrophe, and so does what follows the separator.
    expect(parseCsv(csvLine(['\t=1', '\r=1']))).toEqual([["'\t'=1", "'\r'=1"]]);
    // A negative number too: no amount of this API is negative, so none is changed by it.
    expect(csvCell('-1.5')).toBe("'-1.5");
    for (const safe of ['1+1', 'a=b', 'x@y.z', '0.5']) expect(csvCell(safe)).toBe(safe);
  });

  test('a cell with a ";", a tab, or a space at either end is quoted too; a space inside is not', () => {
    const line = csvLine(['a;b', 'a\tb', ' lead', 'trail ', ' ', 'in side']);
    expect(line).toBe('"a;b","a\tb"," lead","trail "," ",in side\r\n');
    expect(parseCsv(line)).toEqual([['a;b', 'a\tb', ' lead', 'trail ', ' ', 'in side']]);
  });

  test('a formula after a ";", a tab or a line break inside a cell is neutralised too', () => {
    expect(csvCell("Mug;=cmd|' /C calc'!A0;")).toBe(`"Mug;'=cmd|' /C calc'!A0;"`);
    expect(csvCell('a\t+1')).toBe(`"a\t'+1"`);
    expect(csvCell('a;\t@x')).toBe(`"a;'\t'@x"`);
    expect(csvCell('a\r\n-1')).toBe(`"a\r\n'-1"`);
    // Spaces or quotes a reader may drop do not hide one.
    expect(csvCell('a; =1')).toBe(`"a;' =1"`);
    expect(csvCell('a;"=1')).toBe(`"a;'""=1"`);
    // The fees of other currencies, joined by "; ", are quoted and otherwise as they are.
    expect(csvCell('0.10000000 USDT; 0.20000000 ETH')).toBe('"0.10000000 USDT; 0.20000000 ETH"');
    for (const safe of ['a;b=c', 'x\ty@z', 'a; b']) expect(parseCsv(csvLine([safe]))).toEqual([[safe]]);
  });

  test('read as RFC 4180, or split at every ";", tab or line break, no cell starts a formula', () => {
    const alphabet = ['=', '+', '-', '@', ';', '\t', '\r', '\n', ' ', ',', '"', "'", 'a', '1'];
    fc.assert(
      fc.property(
        fc.array(fc.string({ unit: fc.constantFrom(...alphabet), maxLength: 12 }), { maxLength: 4 }),
        (cells) => {
          const line = csvLine(cells);
          const [parsed] = parseCsv(line);
          // Only apostrophes are added: the cells read back as given once they are taken out.
          expect(parsed.map((cell) => cell.replace(/'/g, ''))).toEqual(
            (cells.length > 0 ? cells : ['']).map((cell) => cell.replace(/'/g, '')),
          );
          for (const cell of parsed) expect(cell).not.toMatch(FORMULA);
          // A reader that splits on ";", a tab or a line break whatever the quotes.
          for (const cell of line.slice(0, -2).split(/[;\t\r\n]/)) expect(cell).not.toMatch(FORMULA);
        },
      ),
    );
  });

  test('the order title a customer could shape is neutralised and quoted in the export', async () => {
    const record = order(0, { title: '=cmd|" /C calc"!A0, x' });
    const { text } = await invoiceExportPage(new MemoryList([record]), {});
    const [header, row] = parseCsv(text);
    expect(row[header.indexOf('title')]).toBe(`'=cmd|" /C calc"!A0, x`);
  });
});

describe('columns', () => {
  test('an order row: exact amounts, the implied rate, fees, net, refunds and ids', async () => {
    const record = order(1, {
      status: 'confirmed',
      payment: { currency: 'BTC', amount: '0.00046000', due: '0.00046000', owed: '0', coverage: 'exact' },
      settlement: {
        currency: 'BTC',
        net: '0.00045000',
        fees: [
          { currency: 'BTC', amount: '0.00001000' },
          { currency: 'USDT', amount: '0.10000000' },
        ],
      },
      refunds: [
        { foreignId: 'r-1', debitedAmount: '0.00010000', currency: 'BTC', state: 'confirmed', createdAt: 2 },
        { foreignId: 'r-2', debitedAmount: '0.00005000', currency: 'BTC', state: 'pending', createdAt: 3 },
      ],
      refundable: '0.00030000',
    });
    const { text } = await invoiceExportPage(new MemoryList([record]), {});
    const [header, row] = parseCsv(text);
    expect(header).toEqual(INVOICE_COLUMNS.map(([name]) => name));
    expect(Object.fromEntries(header.map((name, i) => [name, row[i]]))).toMatchObject({
      order_id: 'order-1',
      invoice_id: '1001',
      status: 'paid',
      amount: '25.50000000',
      currency: 'EUR',
      pay_amount: '0.00046000',
      pay_currency: 'BTC',
      paid_amount: '0.00046000',
      // 25.5 / 0.00046, half-even to 8 places.
      rate: '55434.78260870',
      fees: '0.00001000',
      other_fees: '0.10000000 USDT',
      net_amount: '0.00045000',
      net_currency: 'BTC',
      refunded_amount: '0.00010000',
      refund_pending_amount: '0.00005000',
      refundable_amount: '0.00030000',
      refund_ids: 'r-1 r-2',
      created_at: '2030-01-01T00:00:01.000Z',
    });
  });

  test('docs/exports.md describes every column, in order, and no other', () => {
    const doc = readFileSync(path.join(__dirname, '..', '..', 'docs', 'exports.md'), 'utf8');
    const documented = (section: string) =>
      [...(doc.split(`## ${section}`)[1]?.split('\n## ')[0] ?? '').matchAll(/^\| `(\w+)` +\|/gm)].map(
        ([, name]) => name,
      );
    expect(documented('Orders')).toEqual(INVOICE_COLUMNS.map(([name]) => name));
    expect(documented('Refunds')).toEqual(REFUND_COLUMNS.map(([name]) => name));
  });
});

describe('pages', () => {
  test('5,000 orders in a period come in pages that miss and repeat none, each far under 6 MB', async () => {
    // Many share a millisecond, so that the cursor's tie-break on the foreign_id is exercised.
    const all = Array.from({ length: 5_000 }, (_, i) => order(Math.floor(i / 4), { foreignId: `o-${i}` }));
    // Outside the period: one just before it, one at its end (created_before is strict).
    const store = new MemoryList([
      ...all,
      order(-1, { foreignId: 'before' }),
      order(2_000, { foreignId: 'end' }),
    ]);
    const period = { created_after: iso(-1), created_before: iso(2_000) };
    const query = { createdFrom: START_MS - 1_000 + 1, createdBefore: START_MS + 2_000 * 1_000 };
    const seen: string[] = [];
    let after: ListPosition | undefined;
    let pages = 0;
    for (;;) {
      const page = await invoiceExportPage(store, { ...query, after });
      const answer = csvAnswer(page, '/exports/invoices.csv', period, 'invoices.csv');
      const text = String((answer.body as { text: string }).text);
      expect(Buffer.byteLength(text)).toBeLessThan(1_100_000);
      const [header, ...rows] = parseCsv(text);
      expect(header[0]).toBe('order_id');
      expect(rows.length).toBeLessThanOrEqual(EXPORT_ROWS);
      seen.push(...rows.map((row) => row[0]));
      pages += 1;
      const link = answer.headers?.link;
      if (!page.next) {
        expect(link).toBeUndefined();
        break;
      }
      // The link carries the period as given and the cursor the list reads.
      const url = new URL(/^<([^>]+)>; rel="next"$/.exec(link ?? '')![1], 'https://api.example');
      expect(url.pathname).toBe('/exports/invoices.csv');
      expect(url.searchParams.get('created_after')).toBe(period.created_after);
      expect(url.searchParams.get('created_before')).toBe(period.created_before);
      const cursor = decodeCursor(url.searchParams.get('cursor')!, () => true)!;
      after = { createdAt: cursor.at, foreignId: cursor.foreignId! };
    }
    expect(pages).toBe(5);
    expect(seen).toHaveLength(5_000);
    expect(new Set(seen).size).toBe(5_000);
    expect(new Set(seen)).toEqual(new Set(all.map((record) => record.foreignId)));
  });
});

const START_MS = Date.UTC(2030, 0, 1);
const iso = (second: number) => new Date(START_MS + second * 1_000).toISOString();

function order(second: number, overrides: Partial<InvoiceRecord> & { title?: string } = {}): InvoiceRecord {
  const foreignId = overrides.foreignId ?? `order-${second}`;
  const { title = 'Espresso', ...rest } = overrides;
  return {
    foreignId,
    version: 1,
    phase: 'sent',
    attempt: 1,
    request: { foreignId, title, currency: 'EUR', amount: '25.50000000' },
    invoice: {
      id: 1_000 + Math.max(second, 0),
      url: 'https://pay.example/1',
      address: 'bc1qaddress',
      tag: null,
      amount: '25.50000000',
      senderCurrency: 'BTC',
      senderAmount: '0.00046000',
      fixedAt: null,
      releaseAt: null,
    } satisfies InvoiceDetails,
    status: 'pending',
    payment: null,
    cancelled: false,
    error: null,
    claimedAt: 0,
    history: [],
    createdAt: START_MS + second * 1_000,
    updatedAt: START_MS + second * 1_000,
    ...rest,
  } as InvoiceRecord;
}

const newerFirst = (a: ListPosition, b: ListPosition) =>
  b.createdAt - a.createdAt || (a.foreignId < b.foreignId ? 1 : a.foreignId > b.foreignId ? -1 : 0);

/** The list's contract in memory: the order, the range and `more`, as the created index gives them. */
class MemoryList implements NewestFirst<InvoiceRecord> {
  private readonly sorted: InvoiceRecord[];
  constructor(records: InvoiceRecord[]) {
    this.sorted = [...records].sort(newerFirst);
  }

  async listNewest({ after, createdFrom = -Infinity, createdBefore = Infinity, limit }: CreatedQuery) {
    const matching = this.sorted
      .filter((row) => row.createdAt >= createdFrom && row.createdAt < createdBefore)
      .filter((row) => !after || newerFirst(after, row) < 0);
    return { records: matching.slice(0, limit), more: matching.length > limit };
  }
}
