/**
 * Polls `read` until `done` holds or the time is up, and answers the last value either way. The default is long, as
 * a loaded 2-core machine can take seconds for what takes milliseconds when idle; a wait that holds returns at once.
 */
export async function waitFor<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Resolves once work set with `setImmediate` when it was called has run, whatever the machine's load: as the answer
 * to a request sent over the network comes back after what the sender readied while it was on its way. A timer
 * would not do: on a busy machine its time can be up before the loop reaches those immediates.
 */
export async function answeredAfterImmediates(): Promise<void> {
  // Immediates run in order: this one before those set after the call. The second turn comes after all of them.
  await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setImmediate(resolve));
}
