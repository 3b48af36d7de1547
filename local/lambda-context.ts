import type { Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';

/** The context Lambda passes to a handler, with a deadline `timeoutMs` from now. */
export function lambdaContext(functionName: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '512',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** What Lambda reports for a function that overran its timeout. */
export class LambdaTimeoutError extends Error {
  override name = 'LambdaTimeoutError';

  constructor(functionName: string, timeoutMs: number) {
    super(`${functionName}: Task timed out after ${(timeoutMs / 1000).toFixed(2)} seconds`);
  }
}

export interface Invocation<R> {
  /** The context's `awsRequestId`, which every line the handler logs carries. */
  requestId: string;
  /** The handler's result, or a LambdaTimeoutError at the deadline if it has not answered by then. */
  answer: Promise<R>;
  /** Settles when the handler itself does: Lambda would stop an overrunning one, here it runs on unseen. */
  finished: Promise<void>;
}

/** Invokes a handler as Lambda does: with a context `timeoutMs` from its deadline, and a failure at that deadline. */
export function invokeWithTimeout<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  event: E,
  functionName: string,
  timeoutMs: number,
): Invocation<R> {
  const context = lambdaContext(functionName, timeoutMs);
  const running = (async () => handler(event, context))();
  let timer: NodeJS.Timeout | undefined;
  const overrun = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new LambdaTimeoutError(functionName, timeoutMs)), timeoutMs);
  });
  return {
    requestId: context.awsRequestId,
    answer: Promise.race([running, overrun]).finally(() => clearTimeout(timer)),
    finished: running.then(
      () => undefined,
      () => undefined,
    ),
  };
}
