import type { Context } from 'aws-lambda';
import { apiRoute } from '../../http/route';
import { ANSWER_MARGIN_MS, deadlineAt, remainingMs, runWithDeadline } from '../../runtime/deadline';
import middy from '@middy/core';
import { invocation } from '../../runtime/invocation';

const NOW = 1_700_000_000_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const contextWith = (remaining: number) => ({ getRemainingTimeInMillis: () => remaining }) as Context;

afterEach(() => jest.restoreAllMocks());

it('outside any invocation there is no deadline', () => {
  expect(deadlineAt()).toBeUndefined();
  expect(remainingMs()).toBeUndefined();
});

it("an invocation's deadline is the function's remaining time less the margin for writing and answering", async () => {
  jest.spyOn(Date, 'now').mockReturnValue(NOW);
  const handler = middy(async () => ({ deadline: deadlineAt(), left: remainingMs() })).use(invocation());

  await expect(handler({}, contextWith(25_000))).resolves.toEqual({
    deadline: NOW + 25_000 - ANSWER_MARGIN_MS,
    left: 25_000 - ANSWER_MARGIN_MS,
  });
  expect(deadlineAt()).toBeUndefined();
});

it('concurrent invocations each keep their own deadline across awaits', async () => {
  const seen = await Promise.all(
    [NOW + 1, NOW + 2, NOW + 3].map((deadline, i) =>
      runWithDeadline(deadline, async () => {
        await sleep(30 - 10 * i);
        return deadlineAt();
      }),
    ),
  );
  expect(seen).toEqual([NOW + 1, NOW + 2, NOW + 3]);
});

it('every route runs under its invocation deadline', async () => {
  jest.spyOn(Date, 'now').mockReturnValue(NOW);
  const route = apiRoute({ route: { access: 'service' }, input: () => 0 }, async () => ({
    status: 200,
    body: { deadline: deadlineAt() },
  }));

  const result = await route({ headers: {} } as never, contextWith(10_000));

  expect(JSON.parse(result.body as string)).toEqual({ deadline: NOW + 10_000 - ANSWER_MARGIN_MS });
});
