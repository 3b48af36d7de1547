import { closeSync, openSync, writeSync } from 'node:fs';

/**
 * Runs `work` with what is written to the given streams going to /dev/null, one real write per chunk, as Lambda
 * ships each log line: the handlers log, the peer logs and flushes a metric on every call, and the bench's table
 * must stay readable.
 */
export async function withOutputDiscarded<T>(
  work: () => Promise<T>,
  streams: Array<'stdout' | 'stderr'> = ['stdout'],
): Promise<T> {
  const devNull = openSync('/dev/null', 'w');
  const writes = streams.map((name) => [process[name], process[name].write] as const);
  for (const [stream] of writes) {
    stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      writeSync(devNull, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      rest.find((arg): arg is () => void => typeof arg === 'function')?.();
      return true;
    }) as typeof stream.write;
  }
  try {
    return await work();
  } finally {
    for (const [stream, write] of writes) stream.write = write;
    closeSync(devNull);
  }
}

/**
 * The peer in one process at concurrency 16 shares one Metrics store between calls, so a call may find the metrics
 * already flushed by another and warn on stderr; in Lambda each call has its environment to itself.
 */
export const withPeerOutputDiscarded = <T>(work: () => Promise<T>) =>
  withOutputDiscarded(work, ['stdout', 'stderr']);
