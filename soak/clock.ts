// The soak's clock. The quiet period jumps time forward (past every timer, lease and reconcile wait) instead of
// waiting hours. Installed before the stack loads its handlers, so that every `Date.now` they keep follows it; it
// only ever jumps while nothing is in flight.

const realNow = Date.now;
let offsetMs = 0;
let installed = false;

export function installSoakClock(): void {
  if (installed) return;
  installed = true;
  Date.now = () => realNow() + offsetMs;
}

export function advanceSoakClock(ms: number): void {
  if (!installed) throw new Error('installSoakClock() first');
  offsetMs += ms;
}
