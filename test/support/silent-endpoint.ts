import { createServer, type Socket } from 'node:net';
import { startHarness, type Answer, type Harness } from './local-stack';
import { captureOutput, type CapturedOutput } from './output';

export interface SilentEndpoint {
  url: string;
  close(): Promise<void>;
}

/** A loopback endpoint that accepts connections, reads what is sent and never answers: a hung AWS service. */
export async function startSilentEndpoint(): Promise<SilentEndpoint> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket.on('close', () => sockets.delete(socket)).on('error', () => undefined));
    socket.resume();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Registers a test file's hooks: the local stack with one AWS endpoint (by its environment variable) pointing at a
 * silent endpoint. Answers the harness once it is up.
 */
export function stackWithHungEndpoint(variable: string): () => Harness {
  let hung: SilentEndpoint;
  let harness: Harness;
  let output: CapturedOutput;
  beforeAll(async () => {
    output = captureOutput(); // every failed call logs an error; keep the run quiet
    hung = await startSilentEndpoint();
    // With the deployed request timeout, not the local stack's longer one: it is the deployed bound that must hold.
    harness = await startHarness({ env: { [variable]: hung.url, AWS_REQUEST_TIMEOUT_MS: '2000' } });
  });
  afterAll(async () => {
    await hung?.close(); // first: a call still waiting on it ends, so the stack can close
    await harness?.close();
    output?.restore();
  });
  return () => harness;
}

/** Our JSON error, not the gateway's bare 500 after a Lambda timeout. */
export function expectJsonErrors(answers: Answer[]): void {
  for (const answer of answers) {
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(answer.body).toMatchObject({ error: { code: expect.any(String) } });
  }
}
