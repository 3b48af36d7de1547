import type { BaselineIo } from './baseline-io';
import { checkoutByHandler, idSequence, pollByHandler } from './calls';
import { atMost, figure, type Figure } from './figures';
import type { Sizes } from './modes';
import type { PluginUnderTest } from './plugin';
import { median, percentile } from './stats';
import { sideBySide } from './timing';

const RATIO_TARGET = atMost(1.1);

/** The checkout handler beside one claim write, one signed create and one update done by hand. */
export async function checkoutOverhead(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  sizes: Sizes,
): Promise<Figure[]> {
  const handlerId = idSequence('bench-handler');
  const baselineId = idSequence('bench-baseline');
  const handler = () => checkoutByHandler(plugin, handlerId());
  const byHand = () => {
    const foreignId = baselineId();
    return () => baseline.checkout(foreignId);
  };
  const byHandIndexed = () => {
    const foreignId = baselineId();
    return () => baseline.checkout(foreignId, true);
  };
  return [
    ...overheadFigures(
      'checkout.sequential',
      'checkout, sequential',
      await sideBySide(handler, byHand, sizes.checkoutSequential, 1),
    ),
    ...overheadFigures(
      'checkout.concurrent',
      `checkout, concurrency ${sizes.concurrency}`,
      await sideBySide(handler, byHand, sizes.checkoutConcurrent, sizes.concurrency),
    ),
    indexShare(await sideBySide(handler, byHandIndexed, sizes.checkoutSequential, 1)),
  ];
}

/** Not a target: the sequential ratio against by-hand writes that also keep the sparse index's keys. */
function indexShare(times: { subject: number[]; baseline: number[] }): Figure {
  return figure({
    id: 'checkout.sequential.ratioIndexedBaseline',
    label:
      'checkout, sequential: ratio vs a baseline whose writes also carry the index keys (explains the gap)',
    value: median(times.subject) / median(times.baseline),
    unit: 'x',
  });
}

/** The poll handler beside a bare GetItem of the same item. */
export async function pollOverhead(
  plugin: PluginUnderTest,
  baseline: BaselineIo,
  sizes: Sizes,
  foreignId: string,
): Promise<Figure[]> {
  const handler = () => pollByHandler(plugin, foreignId);
  const byHand = () => () => baseline.poll(foreignId);
  return [
    ...overheadFigures(
      'poll.sequential',
      'poll, sequential',
      await sideBySide(handler, byHand, sizes.pollSequential, 1),
    ),
    ...overheadFigures(
      'poll.concurrent',
      `poll, concurrency ${sizes.concurrency}`,
      await sideBySide(handler, byHand, sizes.pollConcurrent, sizes.concurrency),
    ),
  ];
}

function overheadFigures(id: string, label: string, times: { subject: number[]; baseline: number[] }) {
  const latency = (side: 'handler' | 'baseline', samples: number[], p: number): Figure =>
    figure({
      id: `${id}.${side}.p${p}`,
      label: `${label}: ${side} p${p}`,
      value: percentile(samples, p),
      unit: 'ms',
      detail: `n=${samples.length}`,
    });
  const handlerP50 = median(times.subject);
  const baselineP50 = median(times.baseline);
  return [
    latency('handler', times.subject, 50),
    latency('handler', times.subject, 99),
    latency('baseline', times.baseline, 50),
    latency('baseline', times.baseline, 99),
    figure({
      id: `${id}.ratio`,
      label: `${label}: ratio handler/baseline (p50)`,
      value: handlerP50 / baselineP50,
      unit: 'x',
      detail: `p99 ratio ${(percentile(times.subject, 99) / percentile(times.baseline, 99)).toFixed(2)}x`,
      target: RATIO_TARGET,
    }),
  ];
}
