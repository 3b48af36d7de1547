/** Readies one call and answers it unstarted: only the returned function is timed (Lambda builds the event). */
export type Call = () => () => Promise<unknown>;

/**
 * Runs `count` calls with `concurrency` in flight and answers each call's duration in ms. Every call is readied
 * first: readying one (building a Lambda event, which the Lambda runtime does for a function) while others are in
 * flight would put its CPU into their time.
 */
export async function timeCalls(call: Call, count: number, concurrency = 1): Promise<number[]> {
  const durations: number[] = [];
  const readied = Array.from({ length: count }, () => call());
  let started = 0;
  const worker = async () => {
    while (started < count) {
      const run = readied[started++];
      const begin = performance.now();
      await run();
      durations.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return durations;
}

/**
 * Runs `count` calls untimed, a few hundred readied at a time: a call readied long before it runs would start with
 * its invocation's time already spent.
 */
export async function warmCalls(call: Call, count: number, concurrency: number): Promise<void> {
  const batch = concurrency * 32;
  for (let done = 0; done < count; done += batch)
    await timeCalls(call, Math.min(batch, count - done), concurrency);
}

/** CPU spent so far, in µs: by this process (its V8 threads included) and by the backends' process. */
export type CpuMeter = () => Promise<{ process: number; backends: number }>;

type CpuPerCall = { process: number; backends: number };

export interface SideBySide {
  subject: number[];
  baseline: number[];
  /** Each side's CPU per call, when a meter was given: at concurrency the cores it takes set the pace. */
  cpu?: { subject: CpuPerCall; baseline: CpuPerCall };
}

/**
 * Times a subject beside its baseline in alternating rounds (one call each when sequential), swapping which goes
 * first, so that drift in the machine's load and garbage collection land on both alike.
 */
export async function sideBySide(
  subject: Call,
  baseline: Call,
  count: number,
  concurrency: number,
  meter?: CpuMeter,
): Promise<SideBySide> {
  const round = concurrency === 1 ? 1 : concurrency * 8;
  const times = { subject: [] as number[], baseline: [] as number[] };
  const spent = { subject: { process: 0, backends: 0 }, baseline: { process: 0, backends: 0 } };
  for (let done = 0, turn = 0; done < count; done += round, turn++) {
    const size = Math.min(round, count - done);
    const order = turn % 2 === 0 ? (['subject', 'baseline'] as const) : (['baseline', 'subject'] as const);
    for (const side of order) {
      const before = await meter?.();
      times[side].push(...(await timeCalls(side === 'subject' ? subject : baseline, size, concurrency)));
      const after = await meter?.();
      if (before && after) {
        spent[side].process += after.process - before.process;
        spent[side].backends += after.backends - before.backends;
      }
    }
  }
  const perCall = ({ process, backends }: CpuPerCall) => ({
    process: process / count,
    backends: backends / count,
  });
  return meter
    ? { ...times, cpu: { subject: perCall(spent.subject), baseline: perCall(spent.baseline) } }
    : times;
}
