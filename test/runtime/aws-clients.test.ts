// The SDK clients' setup (runtime/aws-clients.ts): a command's middleware resolved once, no logger middleware, and
// every call within the invocation's time.
import { DynamoDBClient, GetItemCommand, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  awsClientConfig,
  MIN_AWS_ATTEMPT_MS,
  NoTimeLeftError,
  withoutSdkLogging,
} from '../../runtime/aws-clients';
import { ANSWER_MARGIN_MS, REPLY_MARGIN_MS, runWithDeadline } from '../../runtime/deadline';
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

describe("inside an invocation, a call to DynamoDB ends within the invocation's time", () => {
  // A DynamoDB endpoint that counts the requests it gets and answers each as `answer` says (never, by default).
  let requests = 0;
  let answer: (response: ServerResponse) => void = () => undefined;
  let endpoint: Server;
  let url: string;
  beforeAll(async () => {
    endpoint = createServer((request, response) => {
      requests++;
      request.resume();
      answer(response);
    });
    await new Promise<void>((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    endpoint.closeAllConnections();
    await new Promise((resolve) => endpoint.close(resolve));
  });
  beforeEach(() => {
    requests = 0;
    answer = () => undefined;
  });

  const clientWith = (config: Partial<DynamoDBClientConfig> = {}) =>
    new DynamoDBClient({ ...awsClientConfig(), ...LOCAL, endpoint: url, ...config });
  const getItem = (client: DynamoDBClient) =>
    client.send(new GetItemCommand({ TableName: 'orders', Key: { pk: { S: 'x' } } }));
  /** An invocation whose AWS calls have `ms` left. */
  const withTimeLeft = <T>(ms: number, work: () => Promise<T>) =>
    runWithDeadline(Date.now() + ms - (ANSWER_MARGIN_MS - REPLY_MARGIN_MS), work);

  test('with too little time left for an answer, nothing is sent', async () => {
    const client = clientWith();
    await expect(withTimeLeft(MIN_AWS_ATTEMPT_MS / 2, () => getItem(client))).rejects.toThrow(
      NoTimeLeftError,
    );
    expect(requests).toBe(0);
    client.destroy();
  });

  test('a hung attempt is cut short when the time is up, and not tried again', async () => {
    const client = clientWith();
    // Two seconds per attempt and four attempts would take eight; the invocation has less than two.
    await expect(withTimeLeft(1_500, () => getItem(client))).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(requests).toBe(1);
    client.destroy();
  });

  test('a wait before a retry that would outlast the time is not waited out', async () => {
    answer = (response) =>
      response
        .writeHead(500, { 'content-type': 'application/x-amz-json-1.0' })
        .end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError' }));
    // A strategy that would wait a minute before each retry.
    let wait: NodeJS.Timeout | undefined;
    const token = (retries: number) => ({ getRetryCount: () => retries, getRetryDelay: () => 0 });
    const patient = {
      acquireInitialRetryToken: async () => token(0),
      refreshRetryTokenForRetry: async (previous: { getRetryCount(): number }) => {
        await new Promise((resolve) => (wait = setTimeout(resolve, 60_000)));
        return token(previous.getRetryCount() + 1);
      },
      recordSuccess: () => undefined,
    };
    const client = clientWith({ retryStrategy: patient });
    try {
      await expect(withTimeLeft(1_500, () => getItem(client))).rejects.toMatchObject({
        name: 'InternalServerError',
      });
      expect(requests).toBe(1);
    } finally {
      clearTimeout(wait);
      client.destroy();
    }
  });

  test('outside any invocation the configured timeout and every retry apply', async () => {
    process.env.AWS_REQUEST_TIMEOUT_MS = '100';
    const client = clientWith();
    delete process.env.AWS_REQUEST_TIMEOUT_MS;
    await expect(getItem(client)).rejects.toMatchObject({ name: 'TimeoutError' });
    expect(requests).toBe(await client.config.maxAttempts());
    client.destroy();
  });
});
