import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

/** The shop's folder: its node_modules, medusa-config.js and package-lock.json. */
export const SHOP_DIR = path.resolve(__dirname, '..');

/** Asks the kernel for a port nobody listens on now; another process may still take it before we bind it. */
function unusedPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** Thrown by a start whose port another process took first, so that `onFreePort` tries another. */
export class PortTaken extends Error {}

/** A child's output that says its port was taken between our choosing it and its binding it. */
export function saysPortTaken(output: string): boolean {
  return /EADDRINUSE|Address already in use/.test(output);
}

/**
 * Starts a server that binds a port of our choosing (PostgreSQL and Medusa cannot take port 0): when another process
 * took the port first, `start` throws `PortTaken` and it starts again on another port.
 */
export async function onFreePort<T>(start: (port: number) => Promise<T>, attempts = 5): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start(await unusedPort());
    } catch (error) {
      if (!(error instanceof PortTaken) || attempt >= attempts) throw error;
    }
  }
}

/** A child process whose output is kept, to search and to show when it fails. */
export interface Child {
  process: ChildProcess;
  /** The tail of its output, to show when it fails. */
  output(): string;
  /** Whether its output so far holds `text`. */
  said(text: string): boolean;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/** Runs the shop's Medusa CLI with `args` in its own process group, so that stopping it stops its children too. */
export function medusa(args: string[], env: Record<string, string>): Child {
  const child = spawn(path.join(SHOP_DIR, 'node_modules/.bin/medusa'), args, {
    cwd: SHOP_DIR,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // All of it: tests that run at once look for their own lines in it.
  const chunks: string[] = [];
  const keep = (chunk: Buffer) => chunks.push(chunk.toString('utf8'));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    process: child,
    // Only the tail matters when a start fails.
    output: () => chunks.join('').slice(-20_000),
    said: (text) => chunks.join('').includes(text),
    exited,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Runs a Medusa CLI command to its end, and throws with its output when it fails. */
export async function medusaCommand(args: string[], env: Record<string, string>): Promise<string> {
  const child = medusa(args, env);
  const code = await child.exited;
  if (code !== 0) throw new Error(`medusa ${args.join(' ')} failed (${code}):\n${child.output()}`);
  return child.output();
}
