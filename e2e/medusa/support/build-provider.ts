import { execFileSync } from 'node:child_process';
import path from 'node:path';

/** The shop loads the provider from its build: build it from the current source before any file starts a shop. */
export default function buildProvider() {
  execFileSync('npm', ['run', 'build', '--workspace', 'packages/medusa-payment', '--silent'], {
    cwd: path.resolve(__dirname, '../../..'),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
