import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';

export interface Moto {
  url: string;
  close(): Promise<void>;
}

/** Whether `moto_server` is on PATH and runs (a pyenv shim can exist without the package behind it). */
export function motoInstalled(): boolean {
  return spawnSync('moto_server', ['--help'], { stdio: 'ignore', timeout: 15_000 }).status === 0;
}

/** Starts moto_server on a free port and waits until it answers. */
export async function startMoto(timeoutMs = 15_000): Promise<Moto> {
  const port = await freePort();
  const child = spawn('moto_server', ['-H', '127.0.0.1', '-p', String(port)], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return { url, close };
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`moto_server did not answer on ${url} within ${timeoutMs} ms`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}
