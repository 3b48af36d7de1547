// Balance snapshots over time, one small chart per currency with its axes and latest value written, and the live
// balance on demand.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { el, show } from '../../shared/dom';
import { ApiError, type Api, type Snapshot, type SnapshotList } from './api';
import { amount, time, words } from './format';
import { latestAsks, table, type Ask } from './page';
import { heading, type ViewContext } from './view';

const PERIODS: ReadonlyArray<[label: string, hours: number]> = [
  ['Last 24 hours', 24],
  ['Last 7 days', 24 * 7],
  ['Last 30 days', 24 * 30],
];
const PAGE_LIMIT = 100;
/** Enough for 30 days of hourly snapshots and the live ones between; a longer history is cut, and says so. */
const MAX_PAGES = 20;
const COLOURS = ['#2563eb', '#d97706', '#059669', '#db2777', '#7c3aed', '#0891b2', '#65a30d', '#dc2626'];
const CHART_HEIGHT = 200;
/** Whole seconds to whole days between ticks, in seconds: snapshots are an hour apart, live ones a minute. */
const TICK_STEPS = [
  1,
  5,
  15,
  30,
  60,
  300,
  900,
  1800,
  3600,
  3 * 3600,
  6 * 3600,
  12 * 3600,
  86400,
  2 * 86400,
  7 * 86400,
];
const SECONDS = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit', second: '2-digit' });
const MINUTES = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit' });
const DAYS = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const tickFormat = (step: number) => (step < 60 ? SECONDS : step < 86400 ? MINUTES : DAYS);

export async function balancesView(context: ViewContext): Promise<void> {
  const { root } = context;
  const period = el(
    'select',
    { id: 'period' },
    ...PERIODS.map(([label, hours]) => el('option', { value: String(hours) }, label)),
  );
  period.value = String(PERIODS[1][1]);
  const liveButton = el('button', { type: 'button', class: 'button button-primary' }, 'Show live balance');
  const chart = el('div', { class: 'panel chart-panel' });
  const latest = el('div', { class: 'panel' });
  show(
    root,
    heading('Balances'),
    el('div', { class: 'toolbar' }, el('label', { for: 'period' }, 'Period'), period, liveButton),
    chart,
    latest,
  );
  const ask = latestAsks();
  const load = async () => {
    if ((await drawHistory(context, chart, latest, Number(period.value), ask())) === 'shared') {
      // Nothing of its own to read live either.
      liveButton.hidden = true;
      period.disabled = true;
    }
  };
  period.addEventListener('change', () => void load());
  liveButton.addEventListener('click', async () => {
    liveButton.disabled = true;
    const live = await context.feedback.load(latest, 'Reading the live balance…', () =>
      context.api.get<Snapshot>('/balances', { live: 'true' }),
    );
    liveButton.disabled = false;
    if (!live) return;
    // The live read is kept as a snapshot, so the chart gains its point too.
    await load();
    showBalances(latest, 'Live balance', live);
    context.feedback.say(`Live balance read at ${time(live.taken_at)}.`);
  });
  await load();
}

async function drawHistory(
  { api, feedback }: ViewContext,
  chart: HTMLElement,
  latest: HTMLElement,
  hours: number,
  ask: Ask,
): Promise<'shared' | void> {
  const history = await feedback.load(
    chart,
    'Loading balance snapshots…',
    () =>
      readHistory(api, hours).catch((error: unknown) => {
        if (error instanceof ApiError && error.code === 'shared_account') return 'shared' as const;
        throw error;
      }),
    ask,
  );
  if (!history) return;
  if (history === 'shared') {
    show(
      chart,
      el(
        'p',
        { class: 'empty' },
        'This store shares the deployment’s payment account, so it has no balance of its own. The account’s balance is on the default store’s Balances page.',
      ),
    );
    show(latest);
    feedback.say('No balances of its own: the store shares the deployment’s account.');
    return 'shared';
  }
  const { snapshots, cut } = history;
  if (snapshots.length === 0) {
    show(
      chart,
      el('p', { class: 'empty' }, 'No snapshots in this period yet. “Show live balance” takes one now.'),
    );
    show(latest);
    feedback.say('No balance snapshots in this period.');
    return;
  }
  const currencies = [...new Set(snapshots.flatMap((snapshot) => snapshot.balances.map((b) => b.currency)))];
  const first = time(snapshots[0].taken_at);
  const last = time(snapshots[snapshots.length - 1].taken_at);
  const charts = currencies.map((currency, index) => currencyChart(snapshots, currency, index, first, last));
  show(
    chart,
    el(
      'p',
      { class: 'help' },
      snapshots.length === 1
        ? `One snapshot so far (${last}): each chart shows its point, and a line joins the next.`
        : `${snapshots.length} snapshots from ${first} to ${last}. Each currency has its own chart and scale, so that a small balance is not a flat line beside a large one.`,
      cut ? ` Only the first ${snapshots.length} snapshots of the period are shown.` : '',
    ),
    el('div', { class: 'charts' }, ...charts.map(({ figure }) => figure)),
    el('details', {}, el('summary', {}, 'The snapshots as a table'), snapshotTable(snapshots, currencies)),
  );
  for (const { plot, draw } of charts) draw(plot);
  showBalances(latest, 'Latest snapshot', snapshots[snapshots.length - 1]);
  feedback.say(`${snapshots.length} balance snapshots shown.`);
}

/** One currency's chart: its latest balance written as its caption, its axes labelled. */
function currencyChart(snapshots: Snapshot[], currency: string, index: number, first: string, last: string) {
  const known = snapshots.filter((snapshot) => balanceOf(snapshot, currency) !== undefined);
  const newest = known[known.length - 1];
  const latest = newest ? `${amount(balanceOf(newest, currency)!, currency)} ${currency}` : '—';
  const plot = el('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `${currency} balance over ${snapshots.length} snapshots, from ${first} to ${last}; the latest ${latest}.`,
  });
  const figure = el(
    'figure',
    {},
    el(
      'figcaption',
      {},
      el('span', { class: 'chart-currency' }, currency),
      ' ',
      el('span', { class: 'chart-latest' }, `${latest}`),
      newest ? el('span', { class: 'chart-when' }, ` at ${time(newest.taken_at)}`) : '',
    ),
    plot,
  );
  return { figure, plot, draw: (container: HTMLElement) => drawChart(container, snapshots, currency, index) };
}

/** uPlot draws numbers, so the decimal strings become numbers here, for drawing only. */
function drawChart(container: HTMLElement, snapshots: Snapshot[], currency: string, index: number): void {
  const colour = COLOURS[index % COLOURS.length];
  const data: uPlot.AlignedData = [
    snapshots.map((snapshot) => Date.parse(snapshot.taken_at) / 1000),
    snapshots.map((snapshot) => {
      const balance = balanceOf(snapshot, currency);
      return balance === undefined ? null : Number(balance);
    }),
  ];
  const width = () => Math.max(260, container.clientWidth);
  const axis = { stroke: '#334155', grid: { stroke: '#e2e8f0' }, ticks: { stroke: '#e2e8f0' } };
  const plot = new uPlot(
    {
      width: width(),
      height: CHART_HEIGHT,
      legend: { show: false },
      scales: { x: { time: true } },
      axes: [
        {
          ...axis,
          label: 'Time (your time zone)',
          // Room for a whole time under each tick on a small chart.
          space: 100,
          incrs: TICK_STEPS,
          values: (_: uPlot, ticks: number[], _axis: number, _space: number, step: number) =>
            ticks.map((tick) => tickFormat(step).format(new Date(tick * 1000))),
        },
        { ...axis, label: currency, size: 70 },
      ],
      series: [
        {},
        { label: currency, stroke: colour, width: 2, points: { show: true, size: 7, fill: colour } },
      ],
    },
    data,
    container,
  );
  new ResizeObserver(() => plot.setSize({ width: width(), height: CHART_HEIGHT })).observe(container);
}

function snapshotTable(snapshots: Snapshot[], currencies: string[]): HTMLTableElement {
  return table(
    'Balance snapshots, oldest first',
    ['Taken at', 'Source', ...currencies],
    snapshots.map((snapshot) => [
      time(snapshot.taken_at),
      words(snapshot.source),
      ...currencies.map((currency) => {
        const balance = balanceOf(snapshot, currency);
        return balance === undefined ? '—' : el('span', { class: 'amount' }, amount(balance, currency));
      }),
    ]),
  );
}

function showBalances(container: HTMLElement, what: string, snapshot: Snapshot): void {
  show(
    container,
    table(
      `${what}, ${time(snapshot.taken_at)}`,
      ['Currency', 'Type', 'Balance'],
      snapshot.balances.map((b) => [
        b.currency,
        words(b.type),
        el('span', { class: 'amount' }, amount(b.balance, b.currency)),
      ]),
    ),
  );
}

function balanceOf(snapshot: Snapshot, currency: string): string | undefined {
  return snapshot.balances.find((b) => b.currency === currency)?.balance;
}

/** The period's snapshots, oldest first, up to MAX_PAGES pages; `cut` when there were more. */
async function readHistory(api: Api, hours: number): Promise<{ snapshots: Snapshot[]; cut: boolean }> {
  const since = new Date(Date.now() - hours * 3600_000).toISOString();
  const snapshots: Snapshot[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const list = await api.get<SnapshotList>('/balances/history', {
      since,
      limit: String(PAGE_LIMIT),
      cursor,
    });
    snapshots.push(...list.data);
    if (list.next_cursor === null) return { snapshots, cut: false };
    cursor = list.next_cursor;
  }
  return { snapshots, cut: true };
}
