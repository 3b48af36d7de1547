// Each call's time as Lambda times its function: from the handler's start to its answer. The caller's wall time
// adds what the local runner spends outside the function, in one process that runs the whole stack and the
// workload: the request waiting for the gateway to invoke the function, and the answer on its way back. A busy
// machine stretches those by seconds, and Lambda counts neither against a function's timeout.
import type { HttpHandler } from '../local/gateway';
import { CALL_HEADER } from './kill';

export class FunctionTimes {
  private readonly byCall = new Map<string, number>();

  /** Times each invocation of `handler` made for a call (CALL_HEADER). */
  wrap(handler: HttpHandler): HttpHandler {
    return (event, context) => {
      const call = (event as { headers?: Record<string, string | undefined> }).headers?.[CALL_HEADER];
      const started = performance.now();
      const running = handler(event, context);
      if (call !== undefined) {
        const answered = () => void this.byCall.set(call, Math.round(performance.now() - started));
        running.then(answered, answered);
      }
      return running;
    };
  }

  /**
   * How long the call's function took to answer, in ms; undefined when it had not answered when the call was
   * answered (the gateway answered for it at its timeout), or ran for no call.
   */
  of(call: string): number | undefined {
    return this.byCall.get(call);
  }
}
