import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { HttpHandler } from '../local/gateway';

/** A request header that asks for its invocation to die after this many of its outgoing exchanges have answered. */
export const KILL_HEADER = 'x-soak-kill-after';
/** A request header naming the caller's call, so that the caller can tell a kill's answer from the function's. */
export const CALL_HEADER = 'x-soak-call';

interface Invocation {
  killAfter: number;
  answered: number;
  dead: boolean;
  die: (error: Error) => void;
}

/**
 * Kills an invocation between its writes, as a crash of the function's process would: once the chosen number of its
 * outgoing HTTP exchanges (DynamoDB, Secrets Manager, the service, the shop) have answered, every later request it
 * starts is destroyed before a byte is sent, and the caller gets the platform's answer at once. The handler runs on
 * unseen, but nothing it does reaches anything any more: from outside, it is dead.
 */
export class InvocationKiller {
  private readonly invocations = new AsyncLocalStorage<Invocation>();
  /** Calls (by CALL_HEADER) whose invocation was killed. */
  readonly killedCalls = new Set<string>();
  /** Kills so far, by function name. */
  readonly kills = new Map<string, number>();
  private readonly unsubscribe: () => void;

  /** `jobKillAfter` decides, per job invocation (no request headers), whether and when it dies. */
  constructor(private readonly jobKillAfter: (name: string) => number | undefined) {
    const onStart = ({ request }: { request: ClientRequest }) => this.started(request);
    subscribe('http.client.request.start', onStart as (message: unknown) => void);
    this.unsubscribe = () => unsubscribe('http.client.request.start', onStart as (message: unknown) => void);
  }

  wrap(name: string, handler: HttpHandler): HttpHandler {
    return (event, context) => {
      const headers = (event as { headers?: Record<string, string | undefined> }).headers;
      const asked = headers?.[KILL_HEADER];
      const killAfter = asked !== undefined ? Number(asked) : headers ? undefined : this.jobKillAfter(name);
      if (killAfter === undefined || !Number.isFinite(killAfter)) return handler(event, context);
      let die!: (error: Error) => void;
      const died = new Promise<never>((_, reject) => (die = reject));
      const invocation: Invocation = { killAfter, answered: 0, dead: false, die };
      const running = this.invocations.run(invocation, () => handler(event, context));
      running.catch(() => undefined);
      died.catch(() => undefined);
      return Promise.race([running, died]).catch((error: unknown) => {
        if (invocation.dead) {
          this.kills.set(name, (this.kills.get(name) ?? 0) + 1);
          const call = headers?.[CALL_HEADER];
          if (call) this.killedCalls.add(call);
        }
        throw error;
      });
    };
  }

  close(): void {
    this.unsubscribe();
  }

  private started(request: ClientRequest): void {
    const invocation = this.invocations.getStore();
    if (!invocation) return;
    if (invocation.dead) {
      request.destroy(new Error('the function was killed'));
      return;
    }
    request.once('response', (response: IncomingMessage) =>
      response.once('end', () => {
        if (invocation.dead || ++invocation.answered < invocation.killAfter) return;
        invocation.dead = true;
        invocation.die(new Error('the function was killed'));
      }),
    );
  }
}
