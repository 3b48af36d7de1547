// The SDK clients' setup (runtime/aws-clients.ts): a command's middleware resolved once, no logger middleware.
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { awsClientConfig, withoutSdkLogging } from '../../runtime/aws-clients';
import { captureOutput } from '../support/output';

const LOCAL = { region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };

test.each([
  ['DynamoDB', () => new DynamoDBClient({ ...awsClientConfig(), ...LOCAL })],
  ['SQS', () => new SQSClient({ ...awsClientConfig(), ...LOCAL })],
])('the %s client loses only its logger middleware and caches each command middleware', (_name, build) => {
  const client = build();
  const before = client.middlewareStack.identify();
  withoutSdkLogging(client);
  const after = client.middlewareStack.identify();
  expect(before.filter((name) => !after.includes(name))).toEqual(['loggerMiddleware - initialize']);
  expect(client.config.cacheMiddleware).toBe(true);
  client.destroy();
});

test('a command resolves its middleware at its first send only', async () => {
  const client = withoutSdkLogging(
    new DynamoDBClient({ ...awsClientConfig(), ...LOCAL, endpoint: 'http://127.0.0.1:9' }),
  );
  let resolved = 0;
  const resolve = GetItemCommand.prototype.resolveMiddleware;
  const spy = jest.spyOn(GetItemCommand.prototype, 'resolveMiddleware').mockImplementation(function (
    this: GetItemCommand,
    ...args
  ) {
    resolved++;
    return resolve.apply(this, args);
  });
  // Nothing listens on port 9 (discard): each send fails fast, after its middleware was resolved or reused.
  const send = () =>
    client.send(new GetItemCommand({ TableName: 'none', Key: { pk: { S: 'x' } } })).catch(() => {});
  await send();
  await send();
  await send();
  expect(resolved).toBe(1);
  spy.mockRestore();
  client.destroy();
});

test("the HTTP handler's warnings go to our log", () => {
  const output = captureOutput();
  try {
    awsClientConfig().requestHandler.logger.warn('socket usage at capacity=50 and 100 additional requests');
  } finally {
    output.restore();
  }
  expect(JSON.parse(output.text())).toMatchObject({
    level: 'warn',
    message: 'AWS SDK HTTP handler warning',
    detail: 'socket usage at capacity=50 and 100 additional requests',
  });
});
