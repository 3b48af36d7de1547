// Balance snapshots over time, one line per currency, and the live balance on demand.
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { el, show } from '../../shared/dom';
import type { Snapshot, SnapshotList } from './api';
import { amount, time, words } from './format';
import { table } from './page';
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
const CHART_HEIGHT = 300;
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
  const load = () => drawHistory(context, chart, latest, Number(period.value));
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
): Promise<void> {
  const history = await feedback.load(chart, 'Loading balance snapshots…', async () => {
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
  });
  if (!history) return;
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
  const plot = el('div', {
    class: 'chart',
    role: 'img',
    'aria-label': `Balances of ${currencies.join(', ')} over ${snapshots.length} snapshots, from ${time(snapshots[0].taken_at)} to ${time(snapshots[snapshots.length - 1].taken_at)}.`,
  });
  show(
    chart,
    el(
      'figure',
      {},
      plot,
      el(
        'figcaption',
        {},
        'Balance snapshots, one line per currency, each on its own scale: point at the chart to read the values.',
        cut ? ` Only the first ${snapshots.length} snapshots of the period are shown.` : '',
      ),
    ),
    el('details', {}, el('summary', {}, 'The snapshots as a table'), snapshotTable(snapshots, currencies)),
  );
  drawChart(plot, snapshots, currencies);
  showBalances(latest, 'Latest snapshot', snapshots[snapshots.length - 1]);
  feedback.say(`${snapshots.length} balance snapshots shown.`);
}

/**
 * uPlot draws numbers, so the decimal strings become numbers here, for drawing only. Each currency gets its own
 * scale: a bitcoin balance and a euro one differ by thousands, and on one scale the smaller would be a flat line.
 */
function drawChart(container: HTMLElement, snapshots: Snapshot[], currencies: string[]): void {
  const data: uPlot.AlignedData = [
    snapshots.map((snapshot) => Date.parse(snapshot.taken_at) / 1000),
    ...currencies.map((currency) =>
      snapshots.map((snapshot) => {
        const balance = balanceOf(snapshot, currency);
        return balance === undefined ? null : Number(balance);
      }),
    ),
  ];
  const width = () => Math.max(320, container.clientWidth);
  const plot = new uPlot(
    {
      width: width(),
      height: CHART_HEIGHT,
      scales: { x: { time: true } },
      axes: [
        {
          stroke: '#475569',
          grid: { stroke: '#e2e8f0' },
          ticks: { stroke: '#e2e8f0' },
          incrs: TICK_STEPS,
          values: (_: uPlot, ticks: number[], _axis: number, _space: number, step: number) =>
            ticks.map((tick) => tickFormat(step).format(new Date(tick * 1000))),
        },
      ],
      series: [
        {},
        ...currencies.map((currency, index) => ({
          label: currency,
          scale: currency,
          stroke: COLOURS[index % COLOURS.length],
          width: 2,
          points: { show: true, size: 7, fill: COLOURS[index % COLOURS.length] },
          value: (_: uPlot, value: number | null) => (value === null ? '—' : String(value)),
        })),
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
