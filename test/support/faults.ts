import type { Answer, Harness } from './local-stack';

export type FaultKind = '5xx' | 'hang' | 'reset_after_commit';

/** Makes the sandbox fail the next `times` requests to `path` (exact, or a prefix ending in *). */
export async function injectFault(harness: Harness, path: string, kind: FaultKind, times = 1): Promise<void> {
  const { status, body } = await harness.control('POST', '/faults', { path, kind, times });
  if (status !== 201) throw new Error(`fault not accepted: ${JSON.stringify(body)}`);
}

export async function clearFaults(harness: Harness): Promise<void> {
  await harness.control('DELETE', '/faults');
}

/** A clear JSON error with one of the expected statuses: never a 500, never a stack trace. */
export function expectCleanError(answer: Answer, statuses: number[], codes: string[]): void {
  expect(statuses).toContain(answer.status);
  expect(codes).toContain(answer.body?.error?.code);
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.body.error.message).toEqual(expect.any(String));
  expect(JSON.stringify(answer.body)).not.toMatch(/\bat .+\(.*:\d+:\d+\)|Error:|node_modules|\.ts:\d+/);
}
