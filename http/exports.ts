// The accounting exports (GET /exports/invoices.csv, /exports/refunds.csv): one row per order or refund, from the
// same views the API answers with, so that a row never disagrees with the list. docs/exports.md describes every
// column; a test keeps it to this list.
import { Decimal } from '../domain/decimal';
import type { ExplorerTemplates } from '../domain/explorers';
import { listUntilFull } from '../domain/lists';
import type { InvoiceRecord, RefundRecord } from '../domain/model';
import type { CreatedQuery, ListPosition, NewestFirst } from '../domain/ports';
import { CSV_CONTENT_TYPE, csvLine } from './csv';
import { encodeCursor } from './cursor';
import { renderedOrUndefined } from './render-guard';
import { asText, type ApiResponse } from './route';
import { invoiceView, refundView, type InvoiceView, type RefundView } from './views';

type Cell = string | number | null;
type Columns<V> = ReadonlyArray<readonly [name: string, cell: (view: V) => Cell]>;

/** A rate's places: enough for a token worth a millionth of the order's currency. */
const RATE_PLACES = 8;

/** How many of `per` one unit of `unit` is worth, rounded half-even to RATE_PLACES; empty without both. */
function rate(per: string | null, unit: string | null): string | null {
  if (per === null || unit === null || new Decimal(unit).isZero()) return null;
  return new Decimal(per).div(unit).toFixed(RATE_PLACES, Decimal.ROUND_HALF_EVEN);
}

/** The sum of the amounts, exact, with the places of the first; null for none. */
function sum(amounts: readonly string[]): string | null {
  if (amounts.length === 0) return null;
  const places = amounts[0].split('.')[1]?.length ?? 0;
  return amounts.reduce((total, amount) => total.plus(amount), new Decimal(0)).toFixed(places);
}

const feeIn = (view: InvoiceView, inNet: boolean) =>
  view.fees.filter((fee) => (fee.currency === view.net_currency) === inNet);

const refundsIn = (view: InvoiceView, state: InvoiceView['refunds'][number]['status']) =>
  view.refunds.filter((refund) => refund.status === state).map((refund) => refund.debited_amount);

export const INVOICE_COLUMNS: Columns<InvoiceView> = [
  ['order_id', (view) => view.foreign_id],
  ['invoice_id', (view) => view.processor_invoice_id],
  ['created_at', (view) => view.created_at],
  ['updated_at', (view) => view.updated_at],
  ['status', (view) => view.status],
  ['exception', (view) => view.exception],
  ['failure_message', (view) => view.failure_message],
  ['title', (view) => view.title],
  ['amount', (view) => view.amount],
  ['currency', (view) => view.currency],
  ['pay_amount', (view) => view.pay_amount],
  ['pay_currency', (view) => view.pay_currency],
  ['paid_amount', (view) => view.paid_amount],
  ['rate', (view) => rate(view.amount, view.pay_amount)],
  ['fees', (view) => sum(feeIn(view, true).map((fee) => fee.amount))],
  [
    'other_fees',
    (view) =>
      feeIn(view, false)
        .map((fee) => `${fee.amount} ${fee.currency}`)
        .join('; '),
  ],
  ['net_amount', (view) => view.net_amount],
  ['net_currency', (view) => view.net_currency],
  ['refunded_amount', (view) => sum(refundsIn(view, 'confirmed'))],
  ['refund_pending_amount', (view) => sum(refundsIn(view, 'pending'))],
  ['refundable_amount', (view) => view.refundable?.amount ?? null],
  ['refund_ids', (view) => view.refunds.map((refund) => refund.foreign_id).join(' ')],
  // The blockchain transaction ids of the customer's deposits, first seen first, as `refund_ids` lists refunds.
  ['txids', (view) => view.payments.map((payment) => payment.txid).join(' ')],
];

export const REFUND_COLUMNS: Columns<RefundView> = [
  ['refund_id', (view) => view.foreign_id],
  ['order_id', (view) => view.invoice_foreign_id],
  ['transaction_id', (view) => view.transaction_id],
  ['created_at', (view) => view.created_at],
  ['updated_at', (view) => view.updated_at],
  ['status', (view) => view.status],
  ['final', (view) => String(view.final)],
  ['failure_message', (view) => view.failure_message],
  ['debited_amount', (view) => view.debited_amount],
  ['debited_currency', (view) => view.debited_currency],
  ['amount', (view) => view.amount],
  ['currency', (view) => view.currency],
  ['rate', (view) => rate(view.amount, view.debited_amount)],
  ['address', (view) => view.address],
];

/** An export's page: its rows and the position of the next page's first. */
export interface CsvPage {
  text: string;
  next: ListPosition | null;
}

/**
 * A page stops at EXPORT_ROWS rows or once it holds EXPORT_BYTES, whichever comes first: far under Lambda's 6 MB
 * answer, whatever its rows hold.
 */
export const EXPORT_ROWS = 1_000;
export const EXPORT_BYTES = 1_000_000;

/** The `status` of a row whose record holds a time no view can write: the row has its id and nothing else. */
export const UNRENDERABLE_STATUS = 'unrenderable';

/** Such a record's row: the first column (its id) and `status` alone, so that the books still show it. */
function markedRow<V>(columns: Columns<V>, foreignId: string): Cell[] {
  return columns.map(([name], index) =>
    index === 0 ? foreignId : name === 'status' ? UNRENDERABLE_STATUS : null,
  );
}

async function exportPage<T extends ListPosition, V>(
  store: NewestFirst<T>,
  query: Omit<CreatedQuery, 'limit'>,
  view: (record: T) => V,
  columns: Columns<V>,
): Promise<CsvPage> {
  const lines = [csvLine(columns.map(([name]) => name))];
  let bytes = Buffer.byteLength(lines[0]);
  const { next } = await listUntilFull(store, query, (record) => {
    const shown = renderedOrUndefined(record, view, 'marked in an export');
    const cells =
      shown === undefined ? markedRow(columns, record.foreignId) : columns.map(([, cell]) => cell(shown));
    const line = csvLine(cells);
    lines.push(line);
    bytes += Buffer.byteLength(line);
    return lines.length > EXPORT_ROWS || bytes >= EXPORT_BYTES ? 'full' : 'more';
  });
  return { text: lines.join(''), next };
}

export function invoiceExportPage(
  store: NewestFirst<InvoiceRecord>,
  query: Omit<CreatedQuery, 'limit'>,
  explorers?: ExplorerTemplates,
) {
  const now = Date.now();
  return exportPage(
    store,
    query,
    (record: InvoiceRecord) => invoiceView(record, now, explorers),
    INVOICE_COLUMNS,
  );
}

export function refundExportPage(store: NewestFirst<RefundRecord>, query: Omit<CreatedQuery, 'limit'>) {
  return exportPage(store, query, refundView, REFUND_COLUMNS);
}

/**
 * The page as CSV, with a `Link` to the next one (RFC 8288): the same period and the cursor where this one
 * stopped. `period` is the query as given, so that the link names the period in the caller's own words.
 */
export function csvAnswer(
  page: CsvPage,
  path: string,
  period: Readonly<Record<string, string | undefined>>,
  filename: string,
): ApiResponse {
  const headers: Record<string, string> = {
    'content-type': CSV_CONTENT_TYPE,
    'content-disposition': `attachment; filename="${filename}"`,
  };
  if (page.next) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(period)) if (value !== undefined) params.set(name, value);
    params.set('cursor', encodeCursor({ at: page.next.createdAt, foreignId: page.next.foreignId }));
    headers.link = `<${path}?${params.toString()}>; rel="next"`;
  }
  return { status: 200, body: asText(page.text), headers };
}
