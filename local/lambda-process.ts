import { build, type BuildOptions } from 'esbuild';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { lambdaBuildOptions } from '../lib/bundling';
import { lambdaContext } from './lambda-context';

/**
 * Bundles each entry (name → source path) into `outDir` as the stack does, or with other `options`, and answers
 * each bundle's path by name.
 */
export async function bundleFunctions(
  entries: Record<string, string>,
  outDir: string,
  options: BuildOptions = lambdaBuildOptions,
): Promise<Record<string, string>> {
  await build({ ...options, entryPoints: entries, outdir: outDir });
  return Object.fromEntries(Object.keys(entries).map((name) => [name, path.join(outDir, `${name}.js`)]));
}

/** A bundled function loaded in a fresh Node process, as Lambda's runtime loads it in a new execution environment. */
export interface LambdaProcess {
  /** The init phase: loading and initialising the bundle's module, timed inside the process. */
  initMs: number;
  /** Invokes the handler; `ms` is timed inside the process, from the call to the settled answer. */
  invoke(event: unknown, functionName: string, timeoutMs?: number): Promise<{ result: unknown; ms: number }>;
  /** What the function has written to stdout and stderr so far. */
  output(): string;
  close(): Promise<void>;
  /** Ends the process at once, as a crash would (SIGKILL): nothing more runs in it, an invocation never answers. */
  kill(): Promise<void>;
}

/**
 * Runs in the child, plain JavaScript so that nothing but the bundle is loaded: times the require, then answers
 * invocations over IPC. The context comes over without its functions, so the deadline is rebuilt here.
 */
const RUNTIME = `
const started = process.hrtime.bigint();
const ms = (since) => Number(process.hrtime.bigint() - since) / 1e6;
const handler = require(process.argv[1])[process.argv[2]];
process.send({ initMs: ms(started) });
process.on('message', async ({ id, event, context, timeoutMs }) => {
  const deadline = Date.now() + timeoutMs;
  const noop = () => undefined;
  const ctx = { ...context, getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()), done: noop, fail: noop, succeed: noop };
  const begin = process.hrtime.bigint();
  try {
    const result = await handler(event, ctx);
    process.send({ id, result, ms: ms(begin) });
  } catch (error) {
    process.send({ id, error: String((error && error.stack) || error), ms: ms(begin) });
  }
});`;

interface Answer {
  id: number;
  result?: unknown;
  error?: string;
  ms: number;
}

/**
 * Starts `bundle` (a CommonJS file exporting the handler as `exportName`) in a new process whose environment is
 * `env` alone, plus PATH, as a function's configuration is all its environment holds.
 */
export async function startLambdaProcess(
  bundle: string,
  env: Record<string, string>,
  exportName = 'handler',
): Promise<LambdaProcess> {
  const child = spawn(process.execPath, ['-e', RUNTIME, bundle, exportName], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const pending = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('exit', (code) => {
    for (const { reject } of pending.values())
      reject(new Error(`The function's process exited (${code}): ${output}`));
  });

  const initMs = await new Promise<number>((resolve, reject) => {
    child.once('message', (message: { initMs: number }) => resolve(message.initMs));
    child.once('exit', (code) => reject(new Error(`${bundle} did not initialise (exit ${code}): ${output}`)));
  });
  child.on('message', (message: Answer) => pending.get(message.id)?.resolve(message));

  let nextId = 0;
  return {
    initMs,
    invoke: async (event, functionName, timeoutMs = 25_000) => {
      const id = ++nextId;
      const answered = new Promise<Answer>((resolve, reject) => pending.set(id, { resolve, reject }));
      child.send({ id, event, context: lambdaContext(functionName, timeoutMs), timeoutMs });
      const answer = await answered.finally(() => pending.delete(id));
      if (answer.error !== undefined) throw new Error(`${functionName} threw: ${answer.error}`);
      return { result: answer.result, ms: answer.ms };
    },
    output: () => output,
    close: () => stop(child, exited),
    kill: () => stop(child, exited, 'SIGKILL'),
  };
}

async function stop(child: ChildProcess, exited: Promise<void>, signal?: NodeJS.Signals): Promise<void> {
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  await exited;
}

/** Runs `start` and answers the environment variables it set or changed: what a function's configuration holds. */
export async function environmentSetBy<T>(
  start: () => Promise<T>,
): Promise<{ value: T; env: Record<string, string> }> {
  const before = { ...process.env };
  const value = await start();
  const env = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => before[entry[0]] !== entry[1]),
  );
  return { value, env };
}
