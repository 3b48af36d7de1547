import { invokeWithTimeout, LambdaTimeoutError } from '../../local/lambda-context';

it('answers the handler result, with a context counting down from the timeout', async () => {
  const invocation = invokeWithTimeout(
    async (event: number, context) => ({ event, left: context.getRemainingTimeInMillis() }),
    7,
    'fn',
    60_000,
  );

  const answer = await invocation.answer;
  expect(answer.event).toBe(7);
  expect(answer.left).toBeLessThanOrEqual(60_000);
  expect(answer.left).toBeGreaterThan(0);
  await expect(invocation.finished).resolves.toBeUndefined();
});

it('fails at the timeout like Lambda when the handler has not answered, and tells when the handler ends', async () => {
  let release = () => undefined as void;
  const handler = () => new Promise<string>((resolve) => (release = () => resolve('late')));

  const invocation = invokeWithTimeout(handler, {}, 'slow-fn', 50);

  await expect(invocation.answer).rejects.toThrow(LambdaTimeoutError);
  await expect(invocation.answer).rejects.toThrow('slow-fn: Task timed out after 0.05 seconds');
  release();
  await expect(invocation.finished).resolves.toBeUndefined();
});
