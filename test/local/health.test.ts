// GET /health against the local stack: the keys and the service, each checked, and neither shown.
import { version } from '../../package.json';
import { clearFaults } from '../support/faults';
import { startHarness, type Answer, type Harness } from '../support/local-stack';
import { captureOutput, type CapturedOutput } from '../support/output';

let harness: Harness;
let output: CapturedOutput;
beforeAll(async () => {
  output = captureOutput(); // a failed check logs a warning
  harness = await startHarness({
    // Each probe reads the secret afresh, so that a test can change it; a hung call would wait a minute for its
    // answer, and the function its 25 s, were it not for the probe's own budget.
    env: { SECRET_TTL_SECONDS: '0', PROCESSING_TIMEOUT_MS: '60000' },
  });
});
afterAll(async () => {
  await harness.close();
  output.restore();
});

const probe = () => harness.api('GET', '/health', { token: 'admin' });

/** Nothing in the answer that opens anything: no key, no token, no URL. */
function expectNothingSecret(answer: Answer): void {
  const { apiKey, secretKey, url } = harness.stack.sandbox!;
  const text = JSON.stringify(answer.body);
  for (const secret of [apiKey, secretKey, harness.stack.adminToken, harness.stack.storefrontToken, url]) {
    expect(text).not.toContain(secret);
  }
  expect(text).not.toMatch(/https?:|127\.0\.0\.1/);
}

async function withProcessingKeys(value: string | undefined, work: () => Promise<void>): Promise<void> {
  const id = harness.stack.secretIds.processingKeys;
  const { apiKey, secretKey } = harness.stack.sandbox!;
  harness.stack.secrets.put(id, value);
  try {
    await work();
  } finally {
    harness.stack.secrets.put(
      id,
      JSON.stringify({ processing_api_key: apiKey, processing_secret_key: secretKey }),
    );
  }
}

test("healthy: 200 ok, the release (package.json's version), each check with its time, after one call to the service", async () => {
  const before = (await harness.upstreamRequests('/v2/*')).length;

  const answer = await probe();

  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({
    status: 'ok',
    version,
    checks: { secrets: { ok: true, ms: expect.any(Number) }, service: { ok: true, ms: expect.any(Number) } },
  });
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(await harness.upstreamRequests('/v2/*')).toHaveLength(before + 1);
  expect((await harness.upstreamRequests('/v2/*')).at(-1)).toMatchObject({ path: '/v2/accounts/list' });
  expectNothingSecret(answer);
});

test('keys the service refuses: 503 degraded; the keys are loaded, the service check names the refusal', async () => {
  await withProcessingKeys(
    JSON.stringify({ processing_api_key: 'wrong-key', processing_secret_key: 'wrong-secret' }),
    async () => {
      const answer = await probe();

      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({
        status: 'degraded',
        version,
        checks: {
          secrets: { ok: true, ms: expect.any(Number) },
          service: { ok: false, ms: expect.any(Number), error: 'processor_auth_failed' },
        },
      });
      expectNothingSecret(answer);
      expect(JSON.stringify(answer.body)).not.toContain('wrong-');
    },
  );
});

test('keys not put in yet: 503 degraded, both checks say so', async () => {
  await withProcessingKeys(undefined, async () => {
    const answer = await probe();

    expect(answer.status).toBe(503);
    expect(answer.body.checks).toEqual({
      secrets: { ok: false, ms: expect.any(Number), error: 'not_configured' },
      service: { ok: false, ms: expect.any(Number), error: 'not_configured' },
    });
  });
});

test('a failed check is logged on a line naming the request and route, with no secret in it', async () => {
  await withProcessingKeys('not json', async () => {
    expect((await probe()).status).toBe(503);
  });

  const lines = output
    .text()
    .split('\n')
    .filter((line) => line.includes('health check failed'))
    .map((line) => JSON.parse(line));
  expect(lines.at(-1)).toMatchObject({
    level: 'warn',
    route: 'GET /health',
    functionName: 'health',
    requestId: expect.any(String),
  });
  const { apiKey, secretKey } = harness.stack.sandbox!;
  expect(output.text()).not.toContain(apiKey);
  expect(output.text()).not.toContain(secretKey);
});

test(
  'a hung service: 503 degraded with a timeout, within the probe budget and not the function time',
  async () => {
    const { status } = await harness.control('POST', '/faults', { path: '/v2/*', kind: 'hang' });
    expect(status).toBe(201);
    try {
      const answer = await probe();

      expect(answer.status).toBe(503);
      expect(answer.body.checks).toEqual({
        secrets: { ok: true, ms: expect.any(Number) },
        service: { ok: false, ms: expect.any(Number), error: 'processor_timeout' },
      });
    } finally {
      await clearFaults(harness);
    }
  },
  // The probe's budget is 5 s; without it the call would wait for the function's deadline, about 23 s.
  15_000,
);
