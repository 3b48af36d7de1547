// Webhook deliveries (the events the shop did not take at their first attempt), newest first, a page at a time:
// each one's order, seq, state, attempts, last answer and next attempt, with a re-send of one event or of every
// failed one (each asks first). A re-send makes a delivery pending again now; the dispatcher sends it on its next
// run, under the same event id.
import { el, show } from '../../shared/dom';
import type { Delivery, DeliveryList, ResentFailed } from './api';
import { time, words } from './format';
import { confirmDialog, facts, helpToolbar, showPager, table } from './page';
import { DEFAULT_STORE_ID, heading, remembered, type ViewContext } from './view';

const PAGE_SIZE = 20;
/** A call re-sends up to 100; this many calls bound one click. */
const MOST_RESEND_CALLS = 50;

/** The pages shown so far, kept while the console is open. */
const pages = (context: ViewContext) =>
  remembered<{ cursors: Array<string | undefined> }>(context, 'webhooks', () => ({ cursors: [undefined] }));

export async function webhooksView(context: ViewContext): Promise<void> {
  const { root } = context;
  const h1 = heading('Webhook deliveries');
  const results = el('div', { class: 'panel' });
  const pager = el('nav', { 'aria-label': 'Pages', class: 'pager' });
  const reload = async (message: string) => {
    await showPage(context, results, pager, reload);
    context.feedback.say(message);
    return h1;
  };
  const refresh = el('button', { type: 'button', class: 'button' }, 'Refresh');
  refresh.addEventListener('click', () => void showPage(context, results, pager, reload));
  show(
    root,
    h1,
    helpToolbar(
      'Each event the shop did not take at its first attempt, with its attempts: retried, failed or re-sent. Delivered means a 2xx. An event taken at once is not listed.',
      refresh,
      resendFailedButton(context, reload),
    ),
    results,
    pager,
  );
  await showPage(context, results, pager, reload);
}

type Reload = (message: string) => Promise<HTMLElement>;

async function showPage(
  context: ViewContext,
  results: HTMLElement,
  pager: HTMLElement,
  reload: Reload,
): Promise<void> {
  const { api, feedback } = context;
  const state = pages(context);
  const page = state.cursors.length;
  const list = await feedback.load(results, 'Loading deliveries…', () =>
    api.get<DeliveryList>('/webhooks/deliveries', {
      limit: String(PAGE_SIZE),
      cursor: state.cursors[page - 1],
    }),
  );
  if (!list) return;
  show(
    results,
    list.data.length === 0
      ? emptyText(page, context.store)
      : table(
          `Deliveries, newest first, page ${page}`,
          ['Event', 'Order', 'Seq', 'Status', 'Attempts', 'Last answer', 'Next attempt', 'Action'],
          list.data.map((delivery) => [
            el('code', {}, delivery.type),
            orderCell(delivery),
            String(delivery.sequence),
            el('span', { class: `badge badge-${delivery.state}` }, words(delivery.state)),
            String(delivery.attempts),
            lastAnswer(delivery),
            time(delivery.next_attempt_at),
            resendButton(context, delivery, reload),
          ]),
        ),
  );
  const count = `${list.data.length} deliver${list.data.length === 1 ? 'y' : 'ies'}`;
  showPager(pager, state, list, count, feedback, () => void showPage(context, results, pager, reload));
}

function emptyText(page: number, store: string): HTMLElement {
  if (page > 1) return el('p', { class: 'empty' }, 'No more deliveries.');
  // Another store's webhook URL is one of its settings, which the platform token changes on the Stores page.
  if (store !== DEFAULT_STORE_ID)
    return el(
      'p',
      { class: 'empty' },
      'No webhook deliveries yet: an event the shop takes at its first attempt is not listed. The plugin sends the store’s events to its webhook URL once one is set in the store’s settings, on the Stores page of the platform token.',
    );
  return el(
    'p',
    { class: 'empty' },
    'No webhook deliveries yet: an event the shop takes at its first attempt is not listed. The plugin sends its events to the shop’s webhook URL once one is set: ',
    el('code', {}, 'STORE_WEBHOOK_URL'),
    ' for npm start, the ',
    el('code', {}, 'webhookUrl'),
    ' context in AWS.',
  );
}

/** An invoice's events link to it; a refund is named. */
function orderCell(delivery: Delivery): Node | string {
  if (delivery.subject === 'refund') return `Refund ${delivery.foreign_id}`;
  return el('a', { href: `#invoices/${encodeURIComponent(delivery.foreign_id)}` }, delivery.foreign_id);
}

/** The endpoint's HTTP status, or why there was none, and when. */
function lastAnswer(delivery: Delivery): Node | string {
  if (delivery.last_attempt_at === null) return '—';
  const answer =
    delivery.last_status === null
      ? words(delivery.last_error ?? 'no answer')
      : `HTTP ${delivery.last_status}`;
  return el('span', {}, answer, el('span', { class: 'when' }, time(delivery.last_attempt_at)));
}

function resendButton(context: ViewContext, delivery: Delivery, reload: Reload): HTMLButtonElement {
  const what = `${delivery.type} #${delivery.sequence} of ${delivery.foreign_id}`;
  const button = el(
    'button',
    { type: 'button', class: 'button button-small' },
    'Re-send…',
    el('span', { class: 'visually-hidden' }, ` ${what}`),
  );
  button.addEventListener('click', () =>
    confirmDialog({
      title: `Re-send ${delivery.type}?`,
      body: [
        el(
          'p',
          {},
          'The shop’s endpoint gets this event again now, with the same id, so a receiver that has it already can drop it.',
        ),
        facts([
          ['Event', delivery.id],
          ['Order', delivery.foreign_id],
          ['Seq', String(delivery.sequence)],
          ['Status', words(delivery.state)],
          ['Attempts so far', String(delivery.attempts)],
        ]),
      ],
      confirm: 'Re-send event',
      dismiss: 'Keep as is',
      action: async () => {
        await context.api.post<Delivery>(`/webhooks/deliveries/${encodeURIComponent(delivery.id)}/resend`);
        return reload(`${what} is set to be sent again.`);
      },
    }),
  );
  return button;
}

function resendFailedButton(context: ViewContext, reload: Reload): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'button button-primary' }, 'Re-send all failed…');
  button.addEventListener('click', () =>
    confirmDialog({
      title: 'Re-send every failed delivery?',
      body: [
        el(
          'p',
          {},
          'Every delivery that ran out of retries is sent again now, each with a new 3-day retry window. Their ids stay the same, so receivers can drop what they already have.',
        ),
      ],
      confirm: 'Re-send all failed',
      dismiss: 'Keep as is',
      action: async () => {
        let resent = 0;
        for (let call = 0; call < MOST_RESEND_CALLS; call++) {
          const answer = await context.api.post<ResentFailed>('/webhooks/deliveries/resend-failed');
          resent += answer.resent;
          if (!answer.more) return reload(resentText(resent, false));
        }
        return reload(resentText(resent, true));
      },
    }),
  );
  return button;
}

function resentText(resent: number, more: boolean): string {
  if (resent === 0) return 'No failed deliveries to re-send.';
  const count = `${resent} failed deliver${resent === 1 ? 'y is' : 'ies are'} set to be sent again`;
  return more ? `${count}; more remain: re-send again.` : `${count}.`;
}
