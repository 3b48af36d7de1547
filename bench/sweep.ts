import { DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import type { InvoiceRecord } from '../domain/model';
import { OPEN_ITEMS_INDEX } from '../store/schema';
import type { CapacityMeter, Units } from './capacity';
import { atMost, exactly, figure, type Figure } from './figures';
import { reads, writes, type PluginUnderTest } from './plugin';
import { median } from './stats';

const DAY_MS = 86_400_000;

export interface SweepSizes {
  /** Open records in the index at each step, e.g. 1,000 then 10,000. */
  openSteps: number[];
  /** Of which due at each run. */
  due: number;
  /** Timed runs per step. */
  runs: number;
}

/** What one record the sweep looks at costs, and what a run with nothing due costs: for the cost table. */
export interface SweepCosts {
  perLook: Units & { upstreamCalls: number; dynamoCalls: number; ms: number };
  emptyRun: Units & { ms: number };
}

interface Run {
  ms: number;
  looked: number;
  reads: number;
  upstreamCalls: number;
}

/**
 * The sweep with a growing number of open records, a fixed number of them due: it must read what is due, not
 * what is open, and take as long at 10,000 open as at 1,000. The records are copies of a real one, shifted a day
 * ahead (not due under any schedule) or a day back (due).
 */
export async function sweepScaling(
  plugin: PluginUnderTest,
  meter: CapacityMeter,
  templateId: string,
  sizes: SweepSizes,
): Promise<{ figures: Figure[]; costs: SweepCosts }> {
  const template = (await plugin.invoices.get(templateId))!;
  const index = await openIndex(plugin);
  let next = 0;
  const seed = async (count: number, shiftMs: number) => {
    const records = Array.from({ length: count }, () => shifted(template, `bench-open-${++next}`, shiftMs));
    await inParallel(records, 16, (record) => plugin.invoices.create(record));
  };
  const runAt = async (open: number): Promise<Run> => {
    await seed(Math.max(0, open - sizes.due - (await index.count())), DAY_MS);
    await seed(sizes.due, -DAY_MS);
    return timedRun(plugin);
  };

  // Untimed runs first, so that the first step's runs do not pay for loading and compiling the sweep's code.
  for (let i = 0; i < 2; i++) {
    await seed(sizes.due, -DAY_MS);
    await timedRun(plugin);
  }
  const steps: Array<{ open: number; runs: Run[] }> = [];
  for (const open of sizes.openSteps) {
    const runs: Run[] = [];
    for (let i = 0; i < sizes.runs; i++) runs.push(await runAt(open));
    steps.push({ open, runs });
  }
  // Counted apart: the meter reads around each write, which would slow a timed run.
  await seed(sizes.due, -DAY_MS);
  const upstreamBefore = (await plugin.upstream()).requests;
  const callsBefore = reads(plugin.commands) + writes(plugin.commands);
  const looks = await meter.during(() => plugin.reconcile());
  const lookUpstream = (await plugin.upstream()).requests - upstreamBefore;
  const lookCalls = reads(plugin.commands) + writes(plugin.commands) - callsBefore;
  const empty = await meter.during(() => plugin.reconcile());
  const emptyMs = (await timedRun(plugin)).ms;

  const first = steps[0];
  const last = steps[steps.length - 1];
  const ms = (step: (typeof steps)[number]) => median(step.runs.map((run) => run.ms));
  const per = (value: number) => value / sizes.due;
  const perStep = steps.flatMap((step) => [
    figure({
      id: `sweep.open${step.open}.looked`,
      label: `sweep, ${step.open} open of which ${sizes.due} due: records looked at per run`,
      value: median(step.runs.map((run) => run.looked)),
      unit: '',
      detail: `${median(step.runs.map((run) => run.reads))} DynamoDB reads, ${median(step.runs.map((run) => run.upstreamCalls))} upstream calls`,
      target: exactly(sizes.due),
    }),
    figure({
      id: `sweep.open${step.open}.ms`,
      label: `sweep, ${step.open} open of which ${sizes.due} due: run time, median`,
      value: ms(step),
      unit: 'ms',
      detail: `${step.runs.length} runs`,
    }),
  ]);
  return {
    figures: [
      ...perStep,
      figure({
        id: 'sweep.timeGrowth',
        label: `sweep run time at ${last.open} open / at ${first.open} open (flat: due work, not open work)`,
        value: ms(last) / ms(first),
        unit: 'x',
        target: atMost(1.25),
      }),
    ],
    costs: {
      perLook: {
        readUnits: per(looks.readUnits - empty.readUnits),
        writeUnits: per(looks.writeUnits),
        indexWriteUnits: per(looks.indexWriteUnits),
        largestItem: looks.largestItem,
        upstreamCalls: per(lookUpstream),
        dynamoCalls: per(lookCalls),
        ms: per(ms(last) - emptyMs),
      },
      emptyRun: { ...empty, ms: emptyMs },
    },
  };
}

async function timedRun(plugin: PluginUnderTest): Promise<Run> {
  const readsBefore = reads(plugin.commands);
  const upstreamBefore = (await plugin.upstream()).requests;
  const begin = performance.now();
  const report = (await plugin.reconcile()) as { invoicesChecked: number; invoicesAbandoned: number };
  const ms = performance.now() - begin;
  return {
    ms,
    looked: report.invoicesChecked + report.invoicesAbandoned,
    reads: reads(plugin.commands) - readsBefore,
    upstreamCalls: (await plugin.upstream()).requests - upstreamBefore,
  };
}

function shifted(template: InvoiceRecord, foreignId: string, shiftMs: number): InvoiceRecord {
  const at = (ms: number) => ms + shiftMs;
  const invoice = template.invoice && {
    ...template.invoice,
    fixedAt: template.invoice.fixedAt && template.invoice.fixedAt + shiftMs / 1000,
    releaseAt: template.invoice.releaseAt && template.invoice.releaseAt + shiftMs / 1000,
  };
  return {
    ...template,
    foreignId,
    version: 1,
    request: { ...template.request, foreignId },
    invoice,
    claimedAt: at(template.claimedAt),
    createdAt: at(template.createdAt),
    updatedAt: at(template.updatedAt),
    history: template.history.map((change) => ({ ...change, at: at(change.at) })),
    sweptAt: undefined,
  };
}

/** Counts the entries of the `open-items` index: the open records. */
async function openIndex(plugin: PluginUnderTest) {
  const client = new DynamoDBClient({});
  const TableName = plugin.backends.tableName;
  const IndexName = OPEN_ITEMS_INDEX.name;
  return {
    count: async () => {
      let total = 0;
      let ExclusiveStartKey: Record<string, never> | undefined;
      do {
        const page = await client.send(
          new ScanCommand({ TableName, IndexName, Select: 'COUNT', ExclusiveStartKey }),
        );
        total += page.Count ?? 0;
        ExclusiveStartKey = page.LastEvaluatedKey as typeof ExclusiveStartKey;
      } while (ExclusiveStartKey);
      return total;
    },
  };
}

async function inParallel<T>(items: T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++]);
  };
  await Promise.all(Array.from({ length: width }, worker));
}
