import type { BaselineIo, Shape } from './baseline-io';
import { pollByHand, pollByHandler } from './calls';
import type { Checkouts } from './checkouts';
import { atMost, figure, type Figure, type Target } from './figures';
import type { Sizes } from './modes';
import type { PluginUnderTest } from './plugin';
import { withPeerOutputDiscarded } from './quiet';
import { median, percentile } from './stats';
import { warmCalls, sideBySide, type Call, type Cpu, type CpuMeter, type SideBySide } from './timing';

/** Issue 32: sequentially, as a Lambda environment serves one request at a time; concurrency 16 is reported only. */
const SEQUENTIAL_TARGETS = { checkout: atMost(1.15), poll: atMost(1.1) } as const;

/** Timing figures, and the sequential mean of each side for the cost table. */
export interface Timed {
  figures: Figure[];
  means: { subject: number; baseline: number };
}

const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
const ratio = (times: SideBySide) => median(times.subject) / median(times.baseline);

/** The by-hand I/O a handler is timed against: its id suffix, its label, and whether the target applies. */
const YARDSTICKS = {
  least: { id: '', label: "by hand through the plugin's client setup", targeted: true },
  sdkDefaults: { id: '.sdkDefaults', label: "by hand through the SDK's default client", targeted: false },
} as const;

/**
 * Fewer calls, to keep the run within five minutes: half for the bare checkout and poll (no target), a quarter for the SDK's
 * default client (no target) and for the peer (its target met with a wide margin in every run so far), a sixth for
 * each of the five shares (no target).
 */
const half = (count: number) => Math.ceil(count / 2);
const quarter = (count: number) => Math.ceil(count / 4);
const sixth = (count: number) => Math.ceil(count / 6);

type Yardstick = keyof typeof YARDSTICKS;

/**
 * A handler beside the least I/O by hand, sequentially and at `concurrency`: through the plugin's client setup,
 * which leaves the plugin's own code and carries the target, and through the SDK's default client, reported.
 */
async function besideByHand(
  id: keyof typeof SEQUENTIAL_TARGETS,
  label: string,
  handler: Call,
  byHand: (yardstick: Yardstick) => Call,
  counts: { sequential: number; concurrent: number; concurrency: number },
  cpu: CpuMeter,
): Promise<Timed> {
  const timed = async (yardstick: Yardstick) => {
    const { id: suffix, label: by, targeted } = YARDSTICKS[yardstick];
    const target = targeted ? SEQUENTIAL_TARGETS[id] : undefined;
    const count = (n: number) => (targeted ? n : quarter(n));
    const sequential = await sideBySide(handler, byHand(yardstick), count(counts.sequential), 1);
    const concurrent = await sideBySide(
      handler,
      byHand(yardstick),
      count(counts.concurrent),
      counts.concurrency,
      targeted ? cpu : undefined,
    );
    const concurrentLabel = `${label}, concurrency ${counts.concurrency}, ${by}`;
    const figures = [
      ...sideFigures(`${id}${suffix}.sequential`, `${label}, sequential, ${by}`, sequential, target),
      ...sideFigures(`${id}${suffix}.concurrent`, concurrentLabel, concurrent, undefined),
      ...cpuFigures(`${id}${suffix}.concurrent.cpu`, concurrentLabel, concurrent),
    ];
    return { figures, sequential };
  };
  const least = await timed('least');
  const sdkDefaults = await timed('sdkDefaults');
  return {
    figures: [...least.figures, ...sdkDefaults.figures],
    means: { subject: mean(least.sequential.subject), baseline: mean(least.sequential.baseline) },
  };
}

/** One side of a share: the handler, or the I/O by hand in one of its shapes. */
type Side = 'handler' | Shape;

/**
 * Where the checkout's gap comes from, sequentially, each share one side timed beside another. `items` times `code`
 * is about the handler's ratio over the least I/O: they split it between the items' design and the plugin's code.
 * Not at concurrency 16: there the bench's process and the backends' share the cores, the slower of the two sets the
 * pace, and shares timed apart neither multiply nor hold still from one run to the next.
 */
const SHARES: Array<{ id: string; subject: Side; baseline: Side; label: string; detail: string }> = [
  {
    id: 'code',
    subject: 'handler',
    baseline: 'sameItem',
    label: "the plugin's code: handler / by-hand writes of items as large as ours",
    detail: "same I/O, same item sizes, same index keys, the plugin's client setup",
  },
  {
    id: 'items',
    subject: 'sameItem',
    baseline: 'least',
    label:
      "the items' design: by-hand writes of items as large as ours, with their index keys / the least I/O",
    detail: 'the records as large as the plugin writes them, both indexes kept',
  },
  {
    id: 'client',
    subject: 'least',
    baseline: 'sdkDefaults',
    label: "the plugin's client setup: the least I/O by hand through it / through the SDK's defaults",
    detail: 'cacheMiddleware, no logger middleware (runtime/aws-clients.ts)',
  },
  {
    id: 'indexMoved',
    subject: 'indexed',
    baseline: 'least',
    label: "index upkeep as before (the claim's open-items entry due later, the answer moving it)",
    detail: 'by hand, over the least I/O',
  },
  {
    id: 'indexKept',
    subject: 'indexKept',
    baseline: 'least',
    label: "index upkeep as designed (the claim writes both indexes' entries, the answer keeps them)",
    detail: 'by hand, over the least I/O',
  },
];

/**
 * The checkout handler beside one claim write, one signed create and one update done by hand. The cost table's
 * by-hand mean is the least I/O through the plugin's client setup, the floor.
 */
export async function checkoutOverhead(
  calls: Checkouts,
  bare: Call,
  sizes: Sizes,
  cpu: CpuMeter,
): Promise<Timed> {
  const { ours: handler, byHand } = calls;
  const timed = await besideByHand(
    'checkout',
    'checkout',
    handler,
    byHand,
    {
      sequential: sizes.checkoutSequential,
      concurrent: sizes.checkoutConcurrent,
      concurrency: sizes.concurrency,
    },
    cpu,
  );
  const bareFigures = await bareBesideByHand(
    'checkout',
    bare,
    byHand('least'),
    {
      sequential: sizes.checkoutSequential,
      concurrent: sizes.checkoutConcurrent,
      concurrency: sizes.concurrency,
      settle: sizes.settle,
    },
    cpu,
  );
  const side = (name: Side) => (name === 'handler' ? handler : byHand(name));
  const shares: Figure[] = [];
  for (const share of SHARES) {
    const times = await sideBySide(
      side(share.subject),
      side(share.baseline),
      sixth(sizes.checkoutSequential),
      1,
    );
    shares.push(
      figure({
        id: `checkout.share.${share.id}`,
        label: `checkout, sequential, ${share.label}`,
        value: ratio(times),
        unit: 'x',
        detail: share.detail,
      }),
    );
  }
  return { means: timed.means, figures: [...timed.figures, ...bareFigures, ...shares] };
}

/**
 * The least code a handler needs (bench/bare-checkout.ts, bench/bare-poll.ts) beside the same least I/O,
 * sequentially and at `concurrency`: the floor under the handler's ratio on this machine, whatever the
 * implementation.
 */
async function bareBesideByHand(
  kind: keyof typeof SEQUENTIAL_TARGETS,
  bare: Call,
  least: Call,
  counts: { sequential: number; concurrent: number; concurrency: number; settle: number },
  cpu: CpuMeter,
): Promise<Figure[]> {
  await warmCalls(bare, counts.settle, counts.concurrency);
  // Its CPU at concurrency, beside the handler's: the floor there too.
  const modes = [
    ['sequential', 'sequential', half(counts.sequential), 1, undefined],
    ['concurrent', `concurrency ${counts.concurrency}`, half(counts.concurrent), counts.concurrency, cpu],
  ] as const;
  const figures: Figure[] = [];
  for (const [mode, label, count, concurrency, meter] of modes) {
    const times = await sideBySide(bare, least, count, concurrency, meter);
    figures.push(
      figure({
        id: `${kind}.bare.${mode}.ratio`,
        label: `${kind}, ${label}, the least code a handler needs around the least I/O / the least I/O`,
        value: ratio(times),
        unit: 'x',
        detail: `p50 ${median(times.subject).toFixed(2)} / ${median(times.baseline).toFixed(2)} ms, n=${times.subject.length}; no layers, no guarantees past a first try that succeeds`,
      }),
      ...cpuFigures(`${kind}.bare.${mode}.cpu`, `${kind}, ${label}`, times, ['bare', 'least I/O']),
    );
  }
  return figures;
}

/** The poll handler beside a bare GetItem of the same item, and the bare poll beside it too. */
export async function pollOverhead(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  bare: Call,
  sizes: Sizes,
  foreignId: string,
  cpu: CpuMeter,
): Promise<Timed> {
  const handler = () => pollByHandler(plugin, foreignId);
  const byHand = (yardstick: Yardstick) => pollByHand(baseline, foreignId, yardstick);
  const counts = {
    sequential: sizes.pollSequential,
    concurrent: sizes.pollConcurrent,
    concurrency: sizes.concurrency,
  };
  const timed = await besideByHand('poll', 'poll', handler, byHand, counts, cpu);
  const bareFigures = await bareBesideByHand(
    'poll',
    bare,
    byHand('least'),
    { ...counts, settle: sizes.settle },
    cpu,
  );
  return { means: timed.means, figures: [...timed.figures, ...bareFigures] };
}

/**
 * Our checkout beside the peer's (bench/peer/checkout.ts), taking turns in this process. The peer logs and flushes
 * a metric on every call, to a real stdout write each: /dev/null.
 */
export async function peerWarm(calls: Checkouts, sizes: Sizes): Promise<Timed> {
  const { ours, peer: theirs } = calls;
  return withPeerOutputDiscarded(async () => {
    const sequential = await sideBySide(ours, theirs, quarter(sizes.checkoutSequential), 1);
    const concurrent = await sideBySide(ours, theirs, quarter(sizes.checkoutConcurrent), sizes.concurrency);
    const label = (mode: string) => `peer comparison, warm checkout, ${mode}`;
    return {
      means: { subject: mean(sequential.subject), baseline: mean(sequential.baseline) },
      figures: [
        ...sideFigures('peer.warm.sequential', label('sequential'), sequential, atMost(0.8), [
          'ours',
          'peer',
        ]),
        ...sideFigures(
          'peer.warm.concurrent',
          label(`concurrency ${sizes.concurrency}`),
          concurrent,
          undefined,
          ['ours', 'peer'],
        ),
      ],
    };
  });
}

/**
 * Each side's CPU per call while it was timed at concurrency, in this process and in the backends': on two shared
 * cores the calls queue for them, so that there a side's CPU, more than its waits, sets its latency.
 */
function cpuFigures(
  id: string,
  label: string,
  { cpu }: SideBySide,
  [subject, baseline]: [string, string] = ['handler', 'baseline'],
): Figure[] {
  if (!cpu) return [];
  const total = ({ process, backends }: Cpu) => process + backends;
  const micros = (value: number) => `${value.toFixed(0)} µs`;
  return [
    figure({
      id: `${id}.ratio`,
      label: `${label}: CPU per call, ${subject}/${baseline} (this process and the backends')`,
      value: total(cpu.subject) / total(cpu.baseline),
      unit: 'x',
      detail: `this process ${micros(cpu.subject.process)} / ${micros(cpu.baseline.process)}, backends ${micros(cpu.subject.backends)} / ${micros(cpu.baseline.backends)}`,
    }),
  ];
}

function sideFigures(
  id: string,
  label: string,
  times: SideBySide,
  target: Target | undefined,
  sides: [string, string] = ['handler', 'baseline'],
): Figure[] {
  const latency = (side: string, samples: number[], p: number): Figure =>
    figure({
      id: `${id}.${side}.p${p}`,
      label: `${label}: ${side} p${p}`,
      value: percentile(samples, p),
      unit: 'ms',
      detail: `n=${samples.length}`,
    });
  const [subject, baseline] = sides;
  return [
    latency(subject, times.subject, 50),
    latency(subject, times.subject, 99),
    latency(baseline, times.baseline, 50),
    latency(baseline, times.baseline, 99),
    figure({
      id: `${id}.ratio`,
      label: `${label}: ratio ${subject}/${baseline} (p50)`,
      value: ratio(times),
      unit: 'x',
      detail: `p99 ratio ${(percentile(times.subject, 99) / percentile(times.baseline, 99)).toFixed(2)}x`,
      target,
    }),
  ];
}
