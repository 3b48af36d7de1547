// When an exchange with the service expires: one timer for all its phases.

export type ExpiryCode = 'connect_timeout' | 'headers_timeout' | 'body_timeout' | 'deadline_exceeded';

/** Node's timers wait at most this long; a longer wait is set again when it ends. */
const MAX_TIMER_MS = 2 ** 31 - 1;
/** Timers fire on the event loop's millisecond clock: within this of the expiry, it has come. */
const TICK_MS = 1;

/**
 * Each phase of an exchange (and each body chunk) sets when it expires, cut short by the deadline. One timer
 * serves them all, set again only when it fires before the expiry or must fire sooner than it would: a phase costs
 * a clock read, not a timer. On the monotonic clock, so that a step of the wall clock moves no timeout.
 */
export class Expiry {
  private at = Infinity;
  private code: ExpiryCode = 'deadline_exceeded';
  private timer: NodeJS.Timeout | undefined;
  private firesAt = Infinity;
  /** The deadline, read once from the wall clock onto the monotonic one. */
  private readonly deadline: number;

  constructor(
    deadlineEpochMs: number,
    private readonly expired: (code: ExpiryCode) => void,
  ) {
    this.deadline = performance.now() + (deadlineEpochMs - Date.now());
  }

  /** From now the exchange expires in `ms` with `code`, or at the deadline if that comes first. */
  expireIn(ms: number, code: ExpiryCode): void {
    const now = performance.now();
    const cut = this.deadline < now + ms;
    this.at = cut ? this.deadline : now + ms;
    this.code = cut ? 'deadline_exceeded' : code;
    if (this.at < this.firesAt) this.arm(now);
  }

  /** The exchange has ended: the timer goes, and nothing sets it again. */
  stop(): void {
    clearTimeout(this.timer);
    this.firesAt = -Infinity;
  }

  private arm(now: number): void {
    clearTimeout(this.timer);
    const wait = Math.min(MAX_TIMER_MS, Math.max(0, this.at - now));
    this.firesAt = now + wait;
    this.timer = setTimeout(() => this.fire(), wait);
  }

  private fire(): void {
    const now = performance.now();
    if (now + TICK_MS >= this.at) this.expired(this.code);
    else this.arm(now);
  }
}
