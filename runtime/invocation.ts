import type { MiddlewareObj } from '@middy/core';
import type { Context } from 'aws-lambda';
import { endContext, enterContext } from '../observability/context';
import { invocationDeadline } from './deadline';

/** The functions this process has run: Lambda gives a container one function, the local stack runs all in one. */
const started = new Set<string>();

/**
 * The first middleware of every handler: the invocation runs under its deadline (runtime/deadline.ts), and every
 * line it logs carries its request id, its function, whether it is the container's first, and its route when it
 * has one.
 */
export function invocation<E, R = unknown>(
  routeOf: (event: E) => string | undefined = () => undefined,
): MiddlewareObj<E, R, Error, Context> {
  return {
    before: ({ event, context }) => {
      const { awsRequestId: requestId, functionName } = context;
      const coldStart = !started.has(functionName);
      started.add(functionName);
      const fields = { requestId, functionName, coldStart, route: routeOf(event) };
      enterContext({ deadline: invocationDeadline(context), fields });
    },
    after: endContext,
    onError: endContext,
  };
}
