import { inspect } from 'node:util';

/** Everything written to stdout, stderr and the console while capturing; nothing reaches the terminal. */
export interface CapturedOutput {
  text(): string;
  restore(): void;
}

const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

export function captureOutput(): CapturedOutput {
  const chunks: string[] = [];
  const keep = (...parts: unknown[]) => {
    chunks.push(
      parts.map((part) => (typeof part === 'string' ? part : inspect(part, { depth: null }))).join(' '),
    );
  };
  const spies = [
    ...CONSOLE_METHODS.map((method) => jest.spyOn(console, method).mockImplementation(keep)),
    ...[process.stdout, process.stderr].map((stream) =>
      jest.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
        keep(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
        return true;
      }),
    ),
  ];
  return {
    text: () => chunks.join('\n'),
    restore: () => spies.forEach((spy) => spy.mockRestore()),
  };
}
