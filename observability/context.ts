// What an invocation carries through every call it makes: its log fields and its deadline (docs/architecture.md,
// rule 5, says where it is held and why).
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
 * One context for the whole process, as Lambda runs one invocation at a time in it: the newest `run` whose work has
 * not settled, else the invocation's. Work an invocation leaves running after it answers sees the next one's.
 */
function heldForTheProcess(): ContextHolder {
  let entered: InvocationContext | undefined;
  const running: InvocationContext[] = [];
  return {
    run: (context, work) => {
      running.push(context);
      const settled = () => {
        const at = running.lastIndexOf(context);
        if (at >= 0) running.splice(at, 1);
      };
      try {
        const result = work();
        if (result instanceof Promise) result.then(settled, settled);
        else settled();
        return result;
      } catch (error) {
        settled();
        throw error;
      }
    },
    enter: (context) => {
      entered = context;
      running.length = 0;
    },
    get: () => running.at(-1) ?? entered,
  };
}

/** Lambda names its function in every environment, and says when one may run several invocations at once. */
export function runsOneInvocationAtATime(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.AWS_LAMBDA_FUNCTION_NAME !== undefined && env.AWS_LAMBDA_MAX_CONCURRENCY === undefined;
}

let chosen: ContextHolder | undefined;
/** Chosen at first use, from the environment the function was given. */
const holder = () => (chosen ??= runsOneInvocationAtATime() ? heldForTheProcess() : storedPerChain());

/** Runs `work` in `context`, which every call it makes, and every call those make, sees. */
export function runInContext<T>(context: InvocationContext, work: () => T): T {
  return holder().run(context, work);
}

/**
 * Puts `context` on the invocation running now and all that it starts: a middleware cannot wrap the handler in
 * `runInContext`. Work left running after the invocation may still see it, so `endContext` marks it ended then.
 */
export function enterContext(context: InvocationContext): void {
  holder().enter(context);
}

export function endContext(): void {
  const context = holder().get();
  if (context) context.ended = true;
}

/** The context of the invocation running now; undefined outside any. */
export function currentContext(): InvocationContext | undefined {
  const context = holder().get();
  return context?.ended ? undefined : context;
}
