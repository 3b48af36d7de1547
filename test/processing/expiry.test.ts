// One timer per exchange: when it expires, with which code, and that it leaves nothing behind. On jest's clock,
// which moves performance.now() and Date.now() with the timers.
import { Expiry, type ExpiryCode } from '../../processing/expiry';

beforeEach(() => jest.useFakeTimers());
afterEach(() => {
  jest.restoreAllMocks();
  jest.useRealTimers();
});

/** An expiry with no deadline unless given, and what it reported. */
function watch(deadlineInMs = Infinity) {
  const expired: ExpiryCode[] = [];
  const expiry = new Expiry(Date.now() + deadlineInMs, (code) => expired.push(code));
  return { expiry, expired };
}

/** Nothing is reported until `ms` from now, then `code` is, once. */
function expectExpiryIn(expired: ExpiryCode[], ms: number, code: ExpiryCode): void {
  jest.advanceTimersByTime(ms - 1);
  expect(expired).toEqual([]);
  jest.advanceTimersByTime(1);
  expect(expired).toEqual([code]);
}

test('expires once, at its phase timeout, with its code', () => {
  const { expiry, expired } = watch();
  expiry.expireIn(3_000, 'connect_timeout');

  expectExpiryIn(expired, 3_000, 'connect_timeout');
  jest.advanceTimersByTime(60_000);
  expect(expired).toEqual(['connect_timeout']);
});

test('a longer phase keeps the one timer, which fires early and is set again for the rest', () => {
  const { expiry, expired } = watch();
  expiry.expireIn(3_000, 'connect_timeout');
  jest.advanceTimersByTime(100);
  expiry.expireIn(10_000, 'headers_timeout');
  expect(jest.getTimerCount()).toBe(1);

  expectExpiryIn(expired, 10_000, 'headers_timeout');
});

test('a shorter phase sets the timer sooner', () => {
  const { expiry, expired } = watch();
  expiry.expireIn(60_000, 'connect_timeout');
  expiry.expireIn(200, 'headers_timeout');

  jest.advanceTimersByTime(200);
  expect(expired).toEqual(['headers_timeout']);
  expect(jest.getTimerCount()).toBe(0);
});

test('each body chunk moves the expiry: a slow but steady body never expires', () => {
  const { expiry, expired } = watch();
  expiry.expireIn(1_000, 'body_timeout');
  for (let chunk = 0; chunk < 10; chunk += 1) {
    jest.advanceTimersByTime(900);
    expiry.expireIn(1_000, 'body_timeout');
  }
  expect(expired).toEqual([]);
  expect(jest.getTimerCount()).toBe(1);

  jest.advanceTimersByTime(1_000);
  expect(expired).toEqual(['body_timeout']);
});

test('a step of the wall clock moves no timeout', () => {
  const { expiry, expired } = watch();
  expiry.expireIn(200, 'headers_timeout');
  jest.setSystemTime(Date.now() - 60_000);

  expectExpiryIn(expired, 200, 'headers_timeout');
});

test('the deadline cuts a phase short, and says so', () => {
  const { expiry, expired } = watch(500);
  expiry.expireIn(10_000, 'headers_timeout');

  jest.advanceTimersByTime(500);
  expect(expired).toEqual(['deadline_exceeded']);
});

test('a deadline already past expires at once', () => {
  const { expiry, expired } = watch(-1);
  expiry.expireIn(3_000, 'connect_timeout');

  jest.advanceTimersByTime(0);
  expect(expired).toEqual(['deadline_exceeded']);
});

test('a wait longer than a timer can hold is served in parts', () => {
  const timers = jest.spyOn(globalThis, 'setTimeout');
  const { expiry, expired } = watch();
  const days30 = 30 * 86_400_000;
  expiry.expireIn(days30, 'headers_timeout');
  // Node would cut a longer one to 1 ms.
  expect(timers.mock.calls.map(([, ms]) => ms)).toEqual([2 ** 31 - 1]);

  expectExpiryIn(expired, days30, 'headers_timeout');
});

test('once stopped, it leaves no timer and nothing sets one again', () => {
  const { expiry, expired } = watch();
  expiry.expireIn(1_000, 'body_timeout');
  expiry.stop();
  expiry.expireIn(10, 'body_timeout');

  expect(jest.getTimerCount()).toBe(0);
  jest.advanceTimersByTime(60_000);
  expect(expired).toEqual([]);
});
