// The loader with the real SDK client against the local Secrets Manager endpoint.
import { startLocalSecretsManager, type LocalSecretsManager } from '../../local/secrets-manager';
import { secretsManagerLoader } from '../../secrets/secrets-manager';

let server: LocalSecretsManager;

beforeAll(async () => {
  server = await startLocalSecretsManager({ 'with-value': '{"a":"b"}', 'no-value-yet': undefined });
  // The client reads these when the loader builds it, at its first read.
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: server.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
});
afterAll(() => server.close());

test('answers the secret string', async () => {
  expect(await secretsManagerLoader('with-value')()).toBe('{"a":"b"}');
  expect(server.calls('with-value')).toBe(1);
});

test('answers undefined for a secret that has no value yet, as the stack creates it', async () => {
  expect(await secretsManagerLoader('no-value-yet')()).toBeUndefined();
});

test('sees a new value at the next read', async () => {
  const load = secretsManagerLoader('with-value');
  server.put('with-value', '{"a":"c"}');
  expect(await load()).toBe('{"a":"c"}');
});
