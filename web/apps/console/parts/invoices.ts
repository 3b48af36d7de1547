// The invoices list: newest first, filtered by status and by a period of days (UTC), a page at a time. The API's
// cursors only go forward, so the console keeps the cursor of every page it has shown to go back. Export
// downloads every order of the period shown as CSV (docs/exports.md).
import { el, show } from '../../shared/dom';
import { withQuery, type Api, type InvoiceList, type InvoiceStatus } from './api';
import { money, STATUS_WORDS, time } from './format';
import { latestAsks, showPager, statusBadge, table, type Ask } from './page';
import { heading, remembered, type ViewContext } from './view';

const PAGE_SIZE = 20;

/** Kept while the console is open, so that coming back from an invoice shows the page it was opened from. */
interface ListState {
  status: InvoiceStatus | '';
  /** The period's first and last days, `YYYY-MM-DD` in UTC; open-ended when empty. */
  from: string;
  to: string;
  cursors: Array<string | undefined>;
}

const DAY_MS = 86_400_000;

/** The period as the API's strict bounds: after the moment before the first day, before the day after the last. */
function period(state: ListState): { created_after?: string; created_before?: string } {
  const day = (date: string, shift: number) =>
    new Date(Date.parse(`${date}T00:00:00Z`) + shift).toISOString();
  return {
    created_after: state.from ? day(state.from, -1) : undefined,
    created_before: state.to ? day(state.to, DAY_MS) : undefined,
  };
}

export async function invoicesView(context: ViewContext): Promise<void> {
  const { root } = context;
  const state = remembered<ListState>(context, 'invoices', () => ({
    status: '',
    from: '',
    to: '',
    cursors: [undefined],
  }));
  const filter = el(
    'select',
    { id: 'status-filter' },
    el('option', { value: '' }, 'All statuses'),
    ...Object.entries(STATUS_WORDS).map(([value, label]) => el('option', { value }, label)),
  );
  filter.value = state.status;
  const from = el('input', { id: 'period-from', type: 'date', value: state.from });
  const to = el('input', { id: 'period-to', type: 'date', value: state.to });
  const exportButton = el('button', { type: 'button', class: 'button' }, 'Export CSV');
  const results = el('div', { class: 'panel' });
  const pager = el('nav', { 'aria-label': 'Pages', class: 'pager' });
  show(
    root,
    heading('Invoices'),
    el(
      'div',
      { class: 'toolbar' },
      el('label', { for: 'status-filter' }, 'Status'),
      filter,
      el('label', { for: 'period-from' }, 'From (UTC)'),
      from,
      el('label', { for: 'period-to' }, 'To (UTC)'),
      to,
      exportButton,
    ),
    results,
    pager,
  );
  const ask = latestAsks();
  const refilter = () => {
    state.status = filter.value as InvoiceStatus | '';
    state.from = from.value;
    state.to = to.value;
    state.cursors = [undefined];
    void showPage(context, state, results, pager, ask);
  };
  for (const control of [filter, from, to]) control.addEventListener('change', refilter);
  exportButton.addEventListener('click', async () => {
    exportButton.disabled = true;
    const rows = await context.feedback.load(results, 'Exporting the period’s orders…', () =>
      downloadExport(context.api, period(state)),
    );
    exportButton.disabled = false;
    if (rows !== undefined) context.feedback.say(`Exported ${rows} orders of the period to invoices.csv.`);
  });
  await showPage(context, state, results, pager, ask);
}

/**
 * Every page of the period's export as one file: the first page's header row, then each page's rows, following
 * the `Link` header. Every order of the period, whatever the status filter: an accounting file leaves none out.
 */
async function downloadExport(api: Api, bounds: ReturnType<typeof period>): Promise<number> {
  const parts: string[] = [];
  let url: string | null = withQuery('/exports/invoices.csv', bounds);
  let rows = 0;
  while (url) {
    const page: { text: string; next: string | null } = await api.text(url);
    const body = parts.length === 0 ? page.text : page.text.slice(page.text.indexOf('\r\n') + 2);
    parts.push(body);
    rows += countRows(body) - (parts.length === 1 ? 1 : 0);
    url = page.next;
  }
  const link = el('a', {
    href: URL.createObjectURL(new Blob(parts, { type: 'text/csv' })),
    download: 'invoices.csv',
  });
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
  return rows;
}

/** The records of a CSV text: CRLFs outside quotes. */
function countRows(text: string): number {
  let rows = 0;
  let quoted = false;
  for (let i = 0; i < text.length; i += 1) {
    if (text[i] === '"') quoted = !quoted;
    else if (!quoted && text[i] === '\r' && text[i + 1] === '\n') rows += 1;
  }
  return rows;
}

async function showPage(
  context: ViewContext,
  state: ListState,
  results: HTMLElement,
  pager: HTMLElement,
  ask: () => Ask,
): Promise<void> {
  const { api, feedback } = context;
  const page = state.cursors.length;
  // What this ask is for, as the filters and the page stood when it began.
  const query = {
    status: state.status || undefined,
    ...period(state),
    limit: String(PAGE_SIZE),
    cursor: state.cursors[page - 1],
  };
  const which = state.status ? `${STATUS_WORDS[state.status].toLowerCase()} invoices` : 'invoices';
  const list = await feedback.load(
    results,
    'Loading invoices…',
    () => api.get<InvoiceList>('/invoices', query),
    ask(),
  );
  if (!list) return;
  show(
    results,
    list.data.length === 0
      ? el('p', { class: 'empty' }, emptyText(which, page, list.next_cursor))
      : table(
          `${which.charAt(0).toUpperCase()}${which.slice(1)}, newest first, page ${page}`,
          ['Order', 'Title', 'Amount', 'Status', 'Created'],
          list.data.map((invoice) => [
            el('a', { href: `#invoices/${encodeURIComponent(invoice.foreign_id)}` }, invoice.foreign_id),
            invoice.title,
            el('span', { class: 'amount' }, money(invoice.amount, invoice.currency)),
            statusBadge(invoice.status),
            time(invoice.created_at),
          ]),
        ),
  );
  showPager(
    pager,
    state,
    list,
    `${list.data.length} ${which}`,
    feedback,
    () => void showPage(context, state, results, pager, ask),
  );
}

/** A filtered page may read its share of the table and find no match, yet have more after it. */
function emptyText(which: string, page: number, nextCursor: string | null): string {
  if (nextCursor) return `No ${which} in this stretch of the list; the next page looks further.`;
  return page === 1 ? `No ${which} yet.` : `No more ${which}.`;
}
