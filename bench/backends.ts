import { fork } from 'node:child_process';
import * as path from 'node:path';

/** What the backends process reports once its servers listen. */
export interface BackendsReady {
  /** The environment the local stack gives its handlers: endpoints, credentials, table and secret names. */
  env: Record<string, string>;
  /** Its gateway, serving the handlers loaded in that process. */
  url: string;
  storefrontToken: string;
  adminToken: string;
  sandbox: { url: string; apiKey: string; secretKey: string };
  tableName: string;
  dynamoUrl: string;
}

type Request = { type: 'counts' } | { type: 'putSecret'; name: string; value: string } | { type: 'close' };
export type BackendsRequest = Request & { id: number };

export interface Backends extends BackendsReady {
  /** Calls served so far by dynalite and by the Secrets Manager endpoint, and the CPU time the process has used. */
  counts(): Promise<{ dynamoCalls: number; secretsCalls: number; cpuMs: number }>;
  /** Adds or replaces a secret at the Secrets Manager endpoint. */
  putSecret(name: string, value: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts the local stack in a child process (bench/backends-process.ts), so that dynalite, the sandbox and the
 * Secrets Manager endpoint do not share the event loop and the core of the code under measurement.
 */
export async function startBackends(): Promise<Backends> {
  const child = fork(path.join(__dirname, 'backends-process.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const ready = await Promise.race([
    new Promise<BackendsReady>((resolve) =>
      child.once('message', (message) => resolve(message as BackendsReady)),
    ),
    exited.then((code) =>
      Promise.reject(new Error(`The backends process exited (${code}) before it was ready`)),
    ),
  ]);
  const answers = new Map<number, (answer: unknown) => void>();
  child.on('message', (message: { id: number }) => answers.get(message.id)?.(message));
  let nextId = 0;
  const ask = <T>(request: Request) =>
    new Promise<T>((resolve) => {
      const id = ++nextId;
      answers.set(id, (answer) => {
        answers.delete(id);
        resolve(answer as T);
      });
      child.send({ ...request, id });
    });
  return {
    ...ready,
    counts: () => ask({ type: 'counts' }),
    putSecret: async (name, value) => {
      await ask({ type: 'putSecret', name, value });
    },
    close: async () => {
      child.send({ type: 'close', id: 0 });
      await exited;
    },
  };
}
