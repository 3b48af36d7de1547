// The bearer-token custom resource against a local Secrets Manager endpoint and a local CloudFormation response URL.
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';

const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:plugin-AbCdEf';

interface CfnResponse {
  body: Record<string, unknown>;
  headers: IncomingHttpHeaders;
}

let server: Server;
let baseUrl: string;
/** Secrets by id; undefined: the secret exists with no value yet, as the stack creates it. */
const secrets = new Map<string, string | undefined>();
const calls: string[] = [];
const responses: CfnResponse[] = [];
let handler: (event: CloudFormationCustomResourceEvent) => Promise<void>;
let logged = '';

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    if (req.method === 'PUT') {
      responses.push({ body: JSON.parse(body), headers: req.headers });
      res.end();
      return;
    }
    const operation = String(req.headers['x-amz-target']).replace('secretsmanager.', '');
    calls.push(operation);
    const input = JSON.parse(body) as { SecretId: string; SecretString?: string };
    res.setHeader('content-type', 'application/x-amz-json-1.1');
    const hasNoValue = operation === 'GetSecretValue' && secrets.get(input.SecretId) === undefined;
    if (!secrets.has(input.SecretId) || hasNoValue) {
      res.statusCode = 400;
      res.end(
        JSON.stringify({ __type: 'ResourceNotFoundException', Message: 'Secrets Manager cannot find it' }),
      );
    } else if (operation === 'GetSecretValue') {
      res.end(
        JSON.stringify({ ARN: input.SecretId, Name: 'plugin', SecretString: secrets.get(input.SecretId) }),
      );
    } else {
      secrets.set(input.SecretId, input.SecretString ?? '');
      res.end(JSON.stringify({ ARN: input.SecretId, Name: 'plugin', VersionId: 'v2' }));
    }
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The client reads its endpoint when the module creates it.
  process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER = baseUrl;
  process.env.AWS_REGION = 'eu-west-1';
  process.env.AWS_ACCESS_KEY_ID = 'test';
  process.env.AWS_SECRET_ACCESS_KEY = 'test';
  ({ handler } = await import('../../lib/tokens/fill-tokens'));
});

afterAll(() => {
  // The SDK and fetch keep their sockets alive; close them so the worker can exit.
  server.closeAllConnections();
  server.close();
});

beforeEach(() => {
  secrets.clear();
  calls.length = 0;
  responses.length = 0;
  logged = '';
  const capture = (...args: unknown[]) => {
    logged += args.join(' ') + '\n';
  };
  jest.spyOn(console, 'log').mockImplementation(capture);
  jest.spyOn(console, 'error').mockImplementation(capture);
});

afterEach(() => {
  jest.restoreAllMocks();
});

function event(
  requestType: 'Create' | 'Update' | 'Delete',
  secretId = SECRET_ARN,
): CloudFormationCustomResourceEvent {
  const common = {
    ServiceToken: 'arn:aws:lambda:eu-west-1:111111111111:function:fill-tokens',
    ResponseURL: `${baseUrl}/cfn-response?X-Amz-Signature=abc`,
    StackId: 'arn:aws:cloudformation:eu-west-1:111111111111:stack/plugin/1',
    RequestId: 'request-1',
    LogicalResourceId: 'SecretTokens',
    ResourceType: 'Custom::BearerTokens',
    ResourceProperties: {
      ServiceToken: 'arn:aws:lambda:eu-west-1:111111111111:function:fill-tokens',
      SecretId: secretId,
    },
  };
  if (requestType === 'Create') return { ...common, RequestType: 'Create' };
  const existing = { ...common, PhysicalResourceId: 'physical-1' };
  if (requestType === 'Delete') return { ...existing, RequestType: 'Delete' };
  return { ...existing, RequestType: 'Update', OldResourceProperties: common.ResourceProperties };
}

const stored = () => JSON.parse(secrets.get(SECRET_ARN) ?? 'null') as Record<string, string>;

test('on Create it puts both tokens into the empty secret and answers without the values', async () => {
  secrets.set(SECRET_ARN, undefined);

  await handler(event('Create'));

  const value = stored();
  expect(Object.keys(value).sort()).toEqual(['admin_token', 'storefront_token']);
  expect(value.storefront_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(value.admin_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(value.storefront_token).not.toBe(value.admin_token);
  expect(calls).toEqual(['GetSecretValue', 'PutSecretValue']);

  expect(responses).toHaveLength(1);
  const [response] = responses;
  expect(response.body).toEqual({
    Status: 'SUCCESS',
    PhysicalResourceId: SECRET_ARN,
    StackId: 'arn:aws:cloudformation:eu-west-1:111111111111:stack/plugin/1',
    RequestId: 'request-1',
    LogicalResourceId: 'SecretTokens',
  });
  expect(response.headers['content-type']).toBe('');
  for (const token of [value.storefront_token, value.admin_token]) {
    expect(JSON.stringify(response.body)).not.toContain(token);
    expect(logged).not.toContain(token);
  }
});

test('it keeps a token that is already there and every other field', async () => {
  const filled = {
    storefront_token: 'kept',
    previous_storefront_token: 'kept-too',
    previous_storefront_token_expires_at: '2030-01-01T00:00:00Z',
  };
  secrets.set(SECRET_ARN, JSON.stringify(filled));

  await handler(event('Create'));

  expect(stored()).toMatchObject(filled);
  expect(stored().admin_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(responses[0].body.Status).toBe('SUCCESS');
});

test('an Update for a secret that has its tokens writes nothing', async () => {
  const complete = { storefront_token: 's', admin_token: 'a' };
  secrets.set(SECRET_ARN, JSON.stringify(complete));

  await handler(event('Update'));

  expect(calls).toEqual(['GetSecretValue']);
  expect(stored()).toEqual(complete);
  expect(responses[0].body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: SECRET_ARN });
});

test('Delete touches nothing and keeps the physical id', async () => {
  await handler(event('Delete'));

  expect(calls).toEqual([]);
  expect(responses[0].body).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'physical-1' });
});

test('a secret that is not a JSON object fails without quoting it', async () => {
  secrets.set(SECRET_ARN, 'hunter2-is-not-json');

  await handler(event('Create'));

  expect(calls).toEqual(['GetSecretValue']);
  expect(responses[0].body).toMatchObject({
    Status: 'FAILED',
    Reason: expect.stringContaining('SyntaxError'),
  });
  expect(JSON.stringify(responses[0].body)).not.toContain('hunter2');
  expect(logged).not.toContain('hunter2');
});

test('a secret that does not exist fails the resource with the error name', async () => {
  await handler(event('Create', 'arn:aws:secretsmanager:eu-west-1:111111111111:secret:gone'));

  expect(responses[0].body).toMatchObject({
    Status: 'FAILED',
    Reason: expect.stringContaining('ResourceNotFoundException'),
  });
});
