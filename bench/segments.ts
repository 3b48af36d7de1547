// Where a sequential call's time goes: each checkout or poll split where its HTTP requests are sent and answered,
// into the CPU spent between its I/O and its waits on the backends.
import { ClientRequest } from 'node:http';
import type { Checkouts } from './checkouts';
import { figure, type Figure } from './figures';
import { median } from './stats';
import type { Call } from './timing';

/** Segments in order: CPU, then a wait, and so on, then CPU; each with its id and what it holds. */
type Segments = ReadonlyArray<readonly [id: string, label: string]>;

/** A checkout's segments: claim, create, the answer's write. */
const CHECKOUT_SEGMENTS = [
  ['cpuToClaim', 'CPU until the claim is sent (token, body, validation, the claim, its item)'],
  ['claimWait', "the claim's wait"],
  ['cpuToCreate', "CPU until the create is sent (the claim's answer, the client secret, the send)"],
  ['createWait', "the create's wait"],
  ['cpuToAnswerWrite', 'CPU until the answer is written (reading it, the answered record, its item)'],
  ['answerWriteWait', "the answer's write's wait"],
  ['cpuToReply', "CPU until the reply (the write's answer, the view)"],
] as const;

/** A poll's segments: its one read. */
const POLL_SEGMENTS = [
  ['cpuToRead', 'CPU until the read is sent (the token, its store, the limit, the key, the send)'],
  ['readWait', "the read's wait"],
  ['cpuToReply', "CPU until the reply (the read's answer, the record, the view, its JSON)"],
] as const;

/**
 * The handler, the least I/O by hand and the bare checkout, `count` sequential checkouts each, taking turns: per
 * segment, the handler's median less the by-hand one, in ms (the detail holds all three medians).
 */
export function checkoutSegments(calls: Checkouts, bare: Call, count: number): Promise<Figure[]> {
  const sides = { handler: calls.ours, 'by hand': calls.byHand('least'), bare };
  return segmentFigures('checkout', CHECKOUT_SEGMENTS, sides, count);
}

/** The same for the poll: the handler, the least I/O by hand and the bare poll. */
export function pollSegments(handler: Call, byHand: Call, bare: Call, count: number): Promise<Figure[]> {
  return segmentFigures('poll', POLL_SEGMENTS, { handler, 'by hand': byHand, bare }, count);
}

async function segmentFigures(
  kind: string,
  segments: Segments,
  sides: { handler: Call; 'by hand': Call } & Record<string, Call>,
  count: number,
): Promise<Figure[]> {
  const names = Object.keys(sides);
  const splits = Object.fromEntries(names.map((name) => [name, [] as number[][]]));
  const marks: number[] = [];
  const mark = () => marks.push(performance.now());
  // Every request here, the SDK's and the service client's, is a node ClientRequest that ends with `end`, and is
  // answered with 'response' once its headers are read. (The diagnostics channel's request.start is published when
  // the write completes, which for a request sent before its socket connects comes with the answer.)
  const end = ClientRequest.prototype.end;
  const ownEnd = Object.hasOwn(ClientRequest.prototype, 'end');
  ClientRequest.prototype.end = function (this: ClientRequest, ...args: unknown[]) {
    mark();
    this.once('response', mark);
    return (end as (...given: unknown[]) => ClientRequest).apply(this, args);
  } as typeof end;
  try {
    for (let turn = 0; turn < count; turn++) {
      for (const name of turn % 2 === 0 ? names : [...names].reverse()) {
        const run = sides[name]();
        marks.length = 0;
        const start = performance.now();
        await run();
        const times = [start, ...marks, performance.now()];
        // A call with a retried or extra request (a request limit's lease) has more marks: it is left out.
        if (times.length === segments.length + 1)
          splits[name].push(times.slice(1).map((time, i) => time - times[i]));
      }
    }
  } finally {
    if (ownEnd) ClientRequest.prototype.end = end;
    else delete (ClientRequest.prototype as Partial<ClientRequest>).end;
  }
  for (const name of names)
    if (splits[name].length === 0) throw new Error(`${kind}, ${name}: no call was split into its segments`);
  const segmentMedian = (name: string, i: number) => median(splits[name].map((split) => split[i]));
  return segments.map(([id, label], i) => {
    const medians = names.map((name) => segmentMedian(name, i));
    return figure({
      id: `${kind}.segments.${id}`,
      label: `${kind}, sequential, ${label}: handler - by hand, p50`,
      value: segmentMedian('handler', i) - segmentMedian('by hand', i),
      unit: 'ms',
      detail: `${names.map((name, n) => `${name} ${medians[n].toFixed(3)}`).join(', ')} ms; n=${names.map((name) => splits[name].length).join('/')}`,
    });
  });
}
