// The invoices list: newest first, filtered by status, a page at a time. The API's cursors only go forward, so
// the console keeps the cursor of every page it has shown to go back.
import { el, show } from '../../shared/dom';
import type { InvoiceList, InvoiceStatus } from './api';
import { money, STATUS_WORDS, time } from './format';
import { pagerControls, statusBadge, table } from './page';
import { heading, type ViewContext } from './view';

const PAGE_SIZE = 20;

/** Kept while the console is open, so that coming back from an invoice shows the page it was opened from. */
const state: { status: InvoiceStatus | ''; cursors: Array<string | undefined> } = {
  status: '',
  cursors: [undefined],
};

export async function invoicesView(context: ViewContext): Promise<void> {
  const { root } = context;
  const filter = el(
    'select',
    { id: 'status-filter' },
    el('option', { value: '' }, 'All statuses'),
    ...Object.entries(STATUS_WORDS).map(([value, label]) => el('option', { value }, label)),
  );
  filter.value = state.status;
  const results = el('div', { class: 'panel' });
  const pager = el('nav', { 'aria-label': 'Pages', class: 'pager' });
  show(
    root,
    heading('Invoices'),
    el('div', { class: 'toolbar' }, el('label', { for: 'status-filter' }, 'Status'), filter),
    results,
    pager,
  );
  filter.addEventListener('change', () => {
    state.status = filter.value as InvoiceStatus | '';
    state.cursors = [undefined];
    void showPage(context, results, pager);
  });
  await showPage(context, results, pager);
}

async function showPage(context: ViewContext, results: HTMLElement, pager: HTMLElement): Promise<void> {
  const { api, feedback } = context;
  const page = state.cursors.length;
  const list = await feedback.load(results, 'Loading invoices…', () =>
    api.get<InvoiceList>('/invoices', {
      status: state.status || undefined,
      limit: String(PAGE_SIZE),
      cursor: state.cursors[page - 1],
    }),
  );
  if (!list) return;
  const which = state.status ? `${STATUS_WORDS[state.status].toLowerCase()} invoices` : 'invoices';
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
  show(
    pager,
    ...pagerControls(state.cursors, list.next_cursor, (cursors) => {
      state.cursors = cursors;
      void showPage(context, results, pager);
    }),
  );
  feedback.say(
    `Page ${page}: ${list.data.length} ${which}${list.next_cursor ? ', more on the next page' : ''}.`,
  );
}

/** A filtered page may read its share of the table and find no match, yet have more after it. */
function emptyText(which: string, page: number, nextCursor: string | null): string {
  if (nextCursor) return `No ${which} in this stretch of the list; the next page looks further.`;
  return page === 1 ? `No ${which} yet.` : `No more ${which}.`;
}
