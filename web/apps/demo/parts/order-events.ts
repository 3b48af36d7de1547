// The "Order events" panel: the webhook events the store's endpoint received for one order, oldest first, as they
// arrive. It polls the store's backend with backoff (sooner again when something happened), pauses while the tab
// is hidden, and stops when the store receives no webhooks at all.
import { el, show } from '../../shared/dom';
import { storeRequest } from './store';

interface OrderEvent {
  id: string;
  type: string;
  sequence: number;
  created_at: string;
}

interface OrderEvents {
  webhooks: boolean;
  events: OrderEvent[];
}

const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 10_000;

const WAITING = 'Waiting for the first event…';

const TIME = new Intl.DateTimeFormat(undefined, { timeStyle: 'medium' });

export interface EventsWatch {
  /** Something was done to the order: look again soon. */
  soon(): void;
}

/** Shows `foreignId`'s events in `panel` (replacing what it held) and keeps them current. */
export function watchOrderEvents(panel: HTMLElement, foreignId: string): EventsWatch {
  const summary = el('p', { role: 'status' }, WAITING);
  const list = el('div');
  show(panel, summary, list);
  let wait = FIRST_WAIT_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let shown = -1;
  let stopped = false;
  const say = (text: string) => {
    if (summary.textContent !== text) show(summary, text);
  };

  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!stopped && !document.hidden) timer = setTimeout(() => void look(), ms);
  };
  const look = async () => {
    let answer: OrderEvents;
    try {
      answer = await storeRequest<OrderEvents>(`/demo/api/orders/${encodeURIComponent(foreignId)}/events`);
    } catch (error) {
      say(error instanceof Error ? error.message : 'The store could not list the events.');
      wait = Math.min(wait * 2, LONGEST_WAIT_MS);
      return schedule(wait);
    }
    if (!answer.webhooks) {
      stopped = true;
      show(
        summary,
        'Webhooks are off, so the plugin tells this store nothing. Start it with ',
        el('code', {}, 'STORE_WEBHOOK_URL=local npm start'),
        ' to see each of the order’s events arrive here.',
      );
      return;
    }
    const { events } = answer;
    say(
      events.length === 0
        ? WAITING
        : `${events.length} received, the latest ${events[events.length - 1].type}.`,
    );
    if (events.length !== shown) {
      shown = events.length;
      show(list, events.length > 0 && eventsTable(foreignId, events));
      wait = FIRST_WAIT_MS;
    } else {
      wait = Math.min(wait * 2, LONGEST_WAIT_MS);
    }
    schedule(wait);
  };
  document.addEventListener('visibilitychange', () => schedule(FIRST_WAIT_MS));
  void look();
  return {
    soon: () => {
      wait = FIRST_WAIT_MS;
      schedule(wait);
    },
  };
}

function eventsTable(foreignId: string, events: OrderEvent[]): HTMLTableElement {
  return el(
    'table',
    { class: 'events-table' },
    el('caption', {}, `Webhook events of order ${foreignId}, oldest first`),
    el(
      'thead',
      {},
      el('tr', {}, ...['Event', 'Seq', 'Time'].map((name) => el('th', { scope: 'col' }, name))),
    ),
    el(
      'tbody',
      {},
      ...events.map((event) =>
        el(
          'tr',
          {},
          el('td', {}, el('code', {}, event.type)),
          el('td', {}, String(event.sequence)),
          el('td', {}, TIME.format(new Date(event.created_at))),
        ),
      ),
    ),
  );
}
