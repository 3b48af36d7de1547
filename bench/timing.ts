/** Readies one call and answers it unstarted: only the returned function is timed (Lambda builds the event). */
export type Call = () => () => Promise<unknown>;

/**
 * Runs `count` calls with `concurrency` in flight and answers each call's duration in ms. Every call is readied
 * first: readying one (building a Lambda event, which the Lambda runtime does for a function) while others are in
 * flight would put its CPU into their time.
 */
export function timeCalls(call: Call, count: number, concurrency = 1): Promise<number[]> {
  return timeReadied(
    Array.from({ length: count }, () => call()),
    concurrency,
  );
}

/** Runs calls already readied, `concurrency` in flight, and answers each one's duration in ms. */
async function timeReadied(readied: Array<() => Promise<unknown>>, concurrency: number): Promise<number[]> {
  const durations: number[] = [];
  let started = 0;
  const worker = async () => {
    while (started < readied.length) {
      const run = readied[started++];
      const begin = performance.now();
      await run();
      durations.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, readied.length) }, worker));
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

/** CPU in µs: this process's (its V8 threads included) and the backends' process's. */
export interface Cpu {
  process: number;
  backends: number;
}

/** The CPU spent so far. */
export type CpuMeter = () => Promise<Cpu>;

export interface SideBySide {
  subject: number[];
  baseline: number[];
  /** Each side's CPU per call while it ran, when a meter was given. */
  cpu?: { subject: Cpu; baseline: Cpu };
}

/**
 * Times a subject beside its baseline in alternating rounds (one call each when sequential), swapping which goes
 * first, so that drift in the machine's load and garbage collection land on both alike. With a meter, each side's
 * CPU is read around its rounds' runs, not their readying (a handler's event is built by the Lambda runtime).
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
      const call = side === 'subject' ? subject : baseline;
      const readied = Array.from({ length: size }, () => call());
      const before = await meter?.();
      times[side].push(...(await timeReadied(readied, concurrency)));
      const after = await meter?.();
      if (before && after) {
        spent[side].process += after.process - before.process;
        spent[side].backends += after.backends - before.backends;
      }
    }
  }
  if (!meter) return times;
  const perCall = ({ process, backends }: Cpu, calls: number) => ({
    process: process / calls,
    backends: backends / calls,
  });
  return {
    ...times,
    cpu: {
      subject: perCall(spent.subject, times.subject.length),
      baseline: perCall(spent.baseline, times.baseline.length),
    },
  };
}
