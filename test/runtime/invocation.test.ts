import type { Context } from 'aws-lambda';
import { lambdaContext } from '../../local/lambda-context';
import { log } from '../../observability/log';
import { ANSWER_MARGIN_MS, deadlineAt } from '../../runtime/deadline';
import middy from '@middy/core';
import { invocation } from '../../runtime/invocation';

let lines: Array<Record<string, unknown>>;
beforeEach(() => {
  lines = [];
  jest.spyOn(console, 'log').mockImplementation((text: string) => lines.push(JSON.parse(text)));
});
afterEach(() => jest.restoreAllMocks());

const context = (functionName: string, requestId: string): Context => ({
  ...lambdaContext(functionName, 25_000),
  awsRequestId: requestId,
});

test("every line an invocation logs names its request, function and route; the function's first is the cold start", async () => {
  const handler = middy(async (event: { routeKey: string }) => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    log.info('working', { on: event.routeKey });
  }).use(invocation<{ routeKey: string }>((event) => event.routeKey));

  await handler({ routeKey: 'GET /a' }, context('fn-cold', 'r-1'));
  await handler({ routeKey: 'GET /a' }, context('fn-cold', 'r-2'));

  expect(lines.map(({ time: _time, ...line }) => line)).toEqual([
    {
      level: 'info',
      message: 'working',
      requestId: 'r-1',
      functionName: 'fn-cold',
      coldStart: true,
      route: 'GET /a',
      on: 'GET /a',
    },
    {
      level: 'info',
      message: 'working',
      requestId: 'r-2',
      functionName: 'fn-cold',
      coldStart: false,
      route: 'GET /a',
      on: 'GET /a',
    },
  ]);
});

test('a job has no route; each function has its own first invocation, as each has its own container in AWS', async () => {
  const job = middy(async () => log.info('job done')).use(invocation());

  await job({}, context('job-a', 'r-1'));
  await job({}, context('job-b', 'r-2'));
  await job({}, context('job-a', 'r-3'));

  expect(lines.map((line) => [line.functionName, line.coldStart, 'route' in line])).toEqual([
    ['job-a', true, false],
    ['job-b', true, false],
    ['job-a', false, false],
  ]);
});

test('the invocation runs under its deadline', async () => {
  jest.spyOn(Date, 'now').mockReturnValue(1_700_000_000_000);
  const handler = middy(async () => deadlineAt()).use(invocation());

  await expect(
    handler({}, { ...context('fn-deadline', 'r-1'), getRemainingTimeInMillis: () => 10_000 }),
  ).resolves.toBe(1_700_000_000_000 + 10_000 - ANSWER_MARGIN_MS);
});
