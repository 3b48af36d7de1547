import type { Context } from 'aws-lambda';
import { runInContext } from './context';
import { invocationDeadline } from './deadline';

/** The functions this process has run: Lambda gives a container one function, the local stack runs all in one. */
const started = new Set<string>();

/**
 * Wraps a Lambda handler: each invocation runs under its deadline (runtime/deadline.ts), and every line it logs
 * carries its request id, its function, whether it is the container's first, and its route when it has one.
 */
export function withInvocation<E, R>(
  handler: (event: E, context: Context) => Promise<R>,
  routeOf: (event: E) => string | undefined = () => undefined,
): (event: E, context: Context) => Promise<R> {
  return (event, context) => {
    const { awsRequestId: requestId, functionName } = context;
    const coldStart = !started.has(functionName);
    started.add(functionName);
    const fields = { requestId, functionName, coldStart, route: routeOf(event) };
    return runInContext({ deadline: invocationDeadline(context), fields }, () => handler(event, context));
  };
}
