// What an invocation carries through every call it makes: its log fields and its deadline. Where one process runs
// several invocations at once (the local stack, the tests, Lambda with AWS_LAMBDA_MAX_CONCURRENCY), an
// AsyncLocalStorage keeps each one's apart; it hooks every promise the process makes, the SDK's included. A Lambda
// environment runs one invocation at a time, so there the current one is simply held, as the AWS SDK and Powertools
// hold theirs.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface InvocationContext {
  /** Epoch ms by which every call to the service must end (runtime/deadline.ts). */
  deadline?: number;
  /** On every line the invocation logs (observability/log.ts). */
  fields: Record<string, unknown>;
  /** Set once the invocation has answered: the context is then read as none. */
  ended?: boolean;
}

interface ContextHolder {
  run<T>(context: InvocationContext, work: () => T): T;
  enter(context: InvocationContext): void;
  get(): InvocationContext | undefined;
}

/** Each async chain sees the context it was started in. */
function storedPerChain(): ContextHolder {
  const storage = new AsyncLocalStorage<InvocationContext>();
  return {
    run: (context, work) => storage.run(context, work),
    enter: (context) => storage.enterWith(context),
    get: () => storage.getStore(),
  };
}

/**
 * One context for the whole process. A nested `run` holds until its work settles; work an invocation leaves running
 * after it answers sees the next invocation's context.
 */
function heldForTheProcess(): ContextHolder {
  let current: InvocationContext | undefined;
  return {
    run: (context, work) => {
      const outer = current;
      current = context;
      const restore = () => {
        if (current === context) current = outer;
      };
      try {
        const result = work();
        if (result instanceof Promise) {
          result.then(restore, restore);
          return result;
        }
        restore();
        return result;
      } catch (error) {
        restore();
        throw error;
      }
    },
    enter: (context) => {
      current = context;
    },
    get: () => current,
  };
}

/** Lambda names its function in every environment, and says when one may run several invocations at once. */
export function runsOneInvocationAtATime(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined && env.AWS_LAMBDA_MAX_CONCURRENCY === undefined;
}

let chosen: ContextHolder | undefined;
/** Chosen at the first invocation, from the environment the function was given. */
const contexts = () => (chosen ??= runsOneInvocationAtATime() ? heldForTheProcess() : storedPerChain());

/** Runs `work` in `context`, which every call it makes, and every call those make, sees. */
export function runInContext<T>(context: InvocationContext, work: () => T): T {
  return contexts().run(context, work);
}

/**
 * Puts `context` on the invocation running now and all that it starts: a middleware cannot wrap the handler in
 * `runInContext`. Work left running after the invocation keeps it, so `endContext` marks it ended then.
 */
export function enterContext(context: InvocationContext): void {
  contexts().enter(context);
}

export function endContext(): void {
  const context = contexts().get();
  if (context) context.ended = true;
}

/** The context of the invocation running now; undefined outside any. */
export function currentContext(): InvocationContext | undefined {
  const context = contexts().get();
  return context?.ended ? undefined : context;
}
