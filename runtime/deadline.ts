// The invocation's deadline, set once per invocation and read by the processing client and the AWS clients (async
// context, so no domain signature has to carry it).
import type { Context } from 'aws-lambda';
import { currentContext, runInContext } from '../observability/context';

/**
 * Kept back from the function's timeout for what comes after the last call to the service: writing the record
 * (a conditional write, re-read on a lost race) and answering. Such a write takes milliseconds; two seconds also
 * cover a slow one on a cold connection.
 */
export const ANSWER_MARGIN_MS = 2_000;

/**
 * Kept back from the function's timeout for answering once the last call to DynamoDB or Secrets Manager has ended
 * or been cut short: the answer is made in memory, but a busy machine may be slow to get round to it.
 */
export const REPLY_MARGIN_MS = 1_000;

/**
 * Runs `work` with a deadline at `deadline` (epoch ms), which every call it makes sees through `deadlineAt`; in a
 * Lambda environment, work running beside it sees it too until it settles (observability/context.ts).
 */
export function runWithDeadline<T>(deadline: number, work: () => T): T {
  return runInContext({ fields: currentContext()?.fields ?? {}, deadline }, work);
}

/** The current invocation's deadline in epoch ms; undefined outside any invocation. */
export function deadlineAt(): number | undefined {
  return currentContext()?.deadline;
}

/** Time left until the current invocation's deadline; undefined outside any invocation. */
export function remainingMs(): number | undefined {
  const deadline = deadlineAt();
  return deadline === undefined ? undefined : Math.max(0, deadline - Date.now());
}

/**
 * When the current invocation's calls to DynamoDB and Secrets Manager must have ended (runtime/aws-clients.ts):
 * after the deadline of its calls to the service, with time left to write what the service answered.
 */
export function storeDeadlineAt(): number | undefined {
  const deadline = deadlineAt();
  return deadline === undefined ? undefined : deadline + ANSWER_MARGIN_MS - REPLY_MARGIN_MS;
}

/** An invocation's deadline: the function's timeout, from its context, less the margin. */
export function invocationDeadline(context: Context): number {
  return Date.now() + context.getRemainingTimeInMillis() - ANSWER_MARGIN_MS;
}
