import { runInContext } from '../../observability/context';
import { addLogContext, describeError, log } from '../../observability/log';

/** Runs `work` as an invocation with `fields` on its lines would. */
const withFields = <T>(fields: Record<string, unknown>, work: () => T) => runInContext({ fields }, work);

let lines: Array<{ stream: 'out' | 'err'; line: Record<string, unknown> }>;
beforeEach(() => {
  lines = [];
  jest
    .spyOn(console, 'log')
    .mockImplementation((text: string) => lines.push({ stream: 'out', line: JSON.parse(text) }));
  jest
    .spyOn(console, 'error')
    .mockImplementation((text: string) => lines.push({ stream: 'err', line: JSON.parse(text) }));
});
afterEach(() => jest.restoreAllMocks());

const only = () => {
  expect(lines).toHaveLength(1);
  return lines[0].line;
};

test('one JSON line with level, message, time and the fields; errors go to stderr', () => {
  log.info('done', { count: 2 });
  log.warn('refused', { status: 400 });
  log.error('failed', { status: 502 });

  expect(lines.map(({ stream, line }) => [stream, line.level, line.message])).toEqual([
    ['out', 'info', 'done'],
    ['out', 'warn', 'refused'],
    ['err', 'error', 'failed'],
  ]);
  expect(lines[0].line).toEqual({ level: 'info', message: 'done', time: expect.any(String), count: 2 });
  expect(new Date(lines[0].line.time as string).toISOString()).toBe(lines[0].line.time);
});

test('fields that could carry credentials are dropped at any depth, in objects and in arrays', () => {
  log.info('call', {
    authorization: 'Bearer a',
    request: {
      headers: { 'x-processing-signature': 'sig', 'x-processing-key': 'key', accept: 'json' },
      body: { api_key: 'k', apiKey: 'k', processing_key: 'k', amount: '1.00000000' },
    },
    attempts: [{ token: 't', status: 502 }, { password: 'p' }],
    secrets: { anything: 'below a dropped name goes with it' },
    clientSecret: 's',
  });

  expect(only()).toEqual({
    level: 'info',
    message: 'call',
    time: expect.any(String),
    request: { headers: { accept: 'json' }, body: { amount: '1.00000000' } },
    attempts: [{ status: 502 }, {}],
  });
});

test("an invocation's context is on every line it logs, after awaits too, and on no line outside it", async () => {
  await withFields({ requestId: 'r-1', route: 'GET /x' }, async () => {
    log.info('first');
    await new Promise((resolve) => setTimeout(resolve, 1));
    addLogContext({ foreignId: 'order-1' });
    log.warn('second', { status: 404 });
  });
  log.info('outside');

  expect(lines.map(({ line: { time: _time, ...rest } }) => rest)).toEqual([
    { level: 'info', message: 'first', requestId: 'r-1', route: 'GET /x' },
    {
      level: 'warn',
      message: 'second',
      requestId: 'r-1',
      route: 'GET /x',
      foreignId: 'order-1',
      status: 404,
    },
    { level: 'info', message: 'outside' },
  ]);
});

test('concurrent invocations keep their own contexts', async () => {
  const invocation = (requestId: string, foreignId: string, waitMs: number) =>
    withFields({ requestId }, async () => {
      addLogContext({ foreignId });
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      log.info('answered');
    });

  await Promise.all([invocation('r-1', 'a', 20), invocation('r-2', 'b', 1)]);

  expect(lines.map(({ line }) => [line.requestId, line.foreignId]).sort()).toEqual([
    ['r-1', 'a'],
    ['r-2', 'b'],
  ]);
});

test('adding context outside an invocation changes nothing', () => {
  addLogContext({ foreignId: 'order-1' });
  log.info('outside');

  expect(only().foreignId).toBeUndefined();
});

test('context fields are redacted like any other', () => {
  withFields({ requestId: 'r-1', token: 't' }, () => log.info('line'));

  expect(only()).toEqual({ level: 'info', message: 'line', time: expect.any(String), requestId: 'r-1' });
});

describe('describeError', () => {
  test('an error: its name, message, status and code', () => {
    const error = Object.assign(new TypeError('bad'), { status: 502, code: 'x', body: 'secret body' });

    expect(describeError(error)).toEqual({
      errorType: 'TypeError',
      errorMessage: 'bad',
      status: 502,
      code: 'x',
    });
  });

  test('anything else thrown: only its type', () => {
    expect(describeError('a string with a token in it')).toEqual({ errorType: 'string' });
  });
});
