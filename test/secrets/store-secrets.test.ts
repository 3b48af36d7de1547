// A store's secret (secrets/store-secrets.ts) with the real SDK client against the local Secrets Manager, which
// answers CreateSecret and PutSecretValue as AWS does.
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { startLocalSecretsManager, type LocalSecretsManager } from '../../local/secrets-manager';
import { parseStoreSecret, SecretsManagerStoreSecrets } from '../../secrets/store-secrets';

let server: LocalSecretsManager;
let sdk: SecretsManagerClient;
const PREFIX = 'plugin/stores/';

beforeAll(async () => {
  server = await startLocalSecretsManager({});
  Object.assign(process.env, {
    AWS_ENDPOINT_URL_SECRETS_MANAGER: server.url,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'local',
    AWS_SECRET_ACCESS_KEY: 'local',
  });
  sdk = new SecretsManagerClient({});
});
afterAll(async () => {
  sdk.destroy();
  await server.close();
});

const errorName = (promise: Promise<unknown>) =>
  promise.then(
    () => 'no error',
    (error: Error) => error.name,
  );

test('the stand-in answers as AWS: a secret created with no value has no version; a name is created once', async () => {
  const created = await sdk.send(new CreateSecretCommand({ Name: 'empty' }));
  expect(created.VersionId).toBeUndefined();
  expect(await errorName(sdk.send(new GetSecretValueCommand({ SecretId: 'empty' })))).toBe(
    'ResourceNotFoundException',
  );
  expect(await errorName(sdk.send(new CreateSecretCommand({ Name: 'empty', SecretString: 'x' })))).toBe(
    'ResourceExistsException',
  );
  await sdk.send(new PutSecretValueCommand({ SecretId: 'empty', SecretString: 'now' }));
  const read = await sdk.send(new GetSecretValueCommand({ SecretId: created.ARN }));
  expect(read.SecretString).toBe('now');
  expect(
    await errorName(sdk.send(new PutSecretValueCommand({ SecretId: 'missing', SecretString: 'x' }))),
  ).toBe('ResourceNotFoundException');
});

test("a store's secret is created with its values, read back, and written over", async () => {
  const secrets = new SecretsManagerStoreSecrets(PREFIX);
  expect(await secrets.read('shop-a')).toBeUndefined();
  await secrets.create('shop-a', { webhookSecrets: ['whsec_one'] });
  expect(server.valueOf(`${PREFIX}shop-a`)).toBe('{"webhook_secret":"whsec_one"}');
  expect(await secrets.read('shop-a')).toEqual({ webhookSecrets: ['whsec_one'] });
  const own = {
    processing: { apiKey: 'key', secretKey: 'secret' },
    webhookSecrets: ['whsec_two', 'whsec_one'],
  };
  await secrets.write('shop-a', own);
  expect(await secrets.read('shop-a')).toEqual(own);
});

test('a create over a secret left by an unfinished create writes its values', async () => {
  const secrets = new SecretsManagerStoreSecrets(PREFIX);
  server.put(`${PREFIX}shop-left`, undefined);
  await secrets.create('shop-left', { webhookSecrets: ['whsec_new'] });
  expect(await secrets.read('shop-left')).toEqual({ webhookSecrets: ['whsec_new'] });
});

test('a malformed secret is refused by field name, never quoting a value', () => {
  expect(() => parseStoreSecret('{"processing_api_key":"k-123"}')).toThrow(/webhook_secret/);
  expect(() => parseStoreSecret('{"processing_api_key":"k-123"}')).not.toThrow(/k-123/);
});
