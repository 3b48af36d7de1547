// Where a sequential checkout's time goes: each checkout split where its HTTP requests are sent and answered, into
// the CPU spent between its I/O and its three waits on the backends.
import { ClientRequest } from 'node:http';
import type { Checkouts } from './checkouts';
import { figure, type Figure } from './figures';
import { median } from './stats';
import type { Call } from './timing';

/** A checkout's segments in order: CPU, then a wait, and so on (claim, create, the answer's write), then CPU. */
const SEGMENTS = [
  ['cpuToClaim', 'CPU until the claim is sent (token, body, validation, the claim, its item)'],
  ['claimWait', "the claim's wait"],
  ['cpuToCreate', "CPU until the create is sent (the claim's answer, the client secret, the send)"],
  ['createWait', "the create's wait"],
  ['cpuToAnswerWrite', 'CPU until the answer is written (reading it, the answered record, its item)'],
  ['answerWriteWait', "the answer's write's wait"],
  ['cpuToReply', "CPU until the reply (the write's answer, the view)"],
] as const;

/**
 * The handler, the least I/O by hand and the bare checkout, `count` sequential checkouts each, taking turns: per
 * segment, the handler's median less the by-hand one, in ms (the detail holds all three medians).
 */
export async function checkoutSegments(calls: Checkouts, bare: Call, count: number): Promise<Figure[]> {
  const sides = { handler: calls.ours, byHand: calls.byHand('least'), bare };
  const names = Object.keys(sides) as Array<keyof typeof sides>;
  const splits = Object.fromEntries(names.map((name) => [name, [] as number[][]])) as Record<
    keyof typeof sides,
    number[][]
  >;
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
        // A call with a retried or extra request has more marks: it is not a first try, so it is left out.
        if (times.length === SEGMENTS.length + 1)
          splits[name].push(times.slice(1).map((time, i) => time - times[i]));
      }
    }
  } finally {
    if (ownEnd) ClientRequest.prototype.end = end;
    else delete (ClientRequest.prototype as Partial<ClientRequest>).end;
  }
  for (const name of names)
    if (splits[name].length === 0) throw new Error(`${name}: no checkout was split into its segments`);
  const segmentMedian = (name: keyof typeof sides, i: number) =>
    median(splits[name].map((segments) => segments[i]));
  return SEGMENTS.map(([id, label], i) => {
    const [handler, byHand, bareCheckout] = names.map((name) => segmentMedian(name, i));
    return figure({
      id: `checkout.segments.${id}`,
      label: `checkout, sequential, ${label}: handler - by hand, p50`,
      value: handler - byHand,
      unit: 'ms',
      detail: `handler ${handler.toFixed(3)}, by hand ${byHand.toFixed(3)}, bare ${bareCheckout.toFixed(3)} ms; n=${names.map((name) => splits[name].length).join('/')}`,
    });
  });
}
