import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { api } from './support';

// `npm run sandbox`: starts on SANDBOX_PORT with the keys from the environment and stops cleanly on SIGTERM.

test('the CLI prints its URL, keys and control prefix, serves, and exits 0 on SIGTERM', async () => {
  const root = join(__dirname, '..', '..');
  // Node with tsx as a loader, not tsx's CLI: the CLI relays SIGTERM and force-kills a child that takes more
  // than 30 ms to acknowledge it, which a busy machine does (exit 143 instead of 0).
  const child = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts'], {
    cwd: root,
    env: { ...process.env, SANDBOX_PORT: '0', SANDBOX_API_KEY: 'cli-key', SANDBOX_SECRET_KEY: 'cli-secret' },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /Control API: (http:\/\/[^\s]+)\/_sandbox/.exec(output);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${output}`)));
  });
  expect(output).toContain('cli-key');
  expect(output).toContain('cli-secret');
  const port = Number(new URL(url).port);
  const answer = await api(
    { url, port, apiKey: 'cli-key', secretKey: 'cli-secret', close: async () => undefined },
    'POST',
    '/v2/accounts/list',
    {},
  );
  expect(answer.status).toBe(200);
  const exitCode = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  expect(await exitCode).toBe(0);
});
