// What an invocation carries through every call it makes: its log fields and its deadline. One AsyncLocalStorage
// holds both, because each storage puts a hook on every promise the process makes, the SDK's included.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface InvocationContext {
  /** Epoch ms by which every call to the service must end (runtime/deadline.ts). */
  deadline?: number;
  /** On every line the invocation logs (observability/log.ts). */
  fields: Record<string, unknown>;
  /** Set once the invocation has answered: the context is then read as none. */
  ended?: boolean;
}

const contexts = new AsyncLocalStorage<InvocationContext>();

/** Runs `work` in `context`, which every call it makes, and every call those make, sees. */
export function runInContext<T>(context: InvocationContext, work: () => T): T {
  return contexts.run(context, work);
}

/**
 * Puts `context` on the async chain running now and all that it starts: a middleware cannot wrap the handler in
 * `runInContext`. The caller's chain keeps it after the invocation, so `endContext` marks it ended then.
 */
export function enterContext(context: InvocationContext): void {
  contexts.enterWith(context);
}

export function endContext(): void {
  const context = contexts.getStore();
  if (context) context.ended = true;
}

/** The context of the invocation running now; undefined outside any. */
export function currentContext(): InvocationContext | undefined {
  const context = contexts.getStore();
  return context?.ended ? undefined : context;
}
