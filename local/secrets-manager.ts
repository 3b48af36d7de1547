import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, type Listening } from './listen';

export interface LocalSecretsManager extends Listening {
  /** Replaces a secret's value, as a rotation would; undefined leaves the secret with no value. */
  put(name: string, value: string | undefined): void;
  /** GetSecretValue calls served so far, for one secret or for all. */
  calls(name?: string): number;
  /** A secret's value now (undefined: none, or no such secret), as a test reads what a route wrote. */
  valueOf(name: string): string | undefined;
}

/**
 * The Secrets Manager wire protocol, as much as the plugin uses (GetSecretValue, CreateSecret, PutSecretValue):
 * the real SDK client posts JSON 1.1 with an `x-amz-target` header, and reads the answer or a typed error from
 * `__type`, named as AWS names them. A secret created with no value has no version, as in AWS.
 */
export async function startLocalSecretsManager(
  /** Each secret's value; undefined: the secret exists with no value yet, as the stack creates it. */
  secrets: Record<string, string | undefined>,
  port = 0,
): Promise<LocalSecretsManager> {
  const values = new Map(Object.entries(secrets));
  const calls = new Map<string, number>();
  const server = createServer((request, response) => {
    readBody(request).then((body) => answer(request, response, body));
  });

  function answer(request: IncomingMessage, response: ServerResponse, body: string): void {
    const target = String(request.headers['x-amz-target'] ?? '');
    let input: { SecretId?: string; Name?: string; SecretString?: string };
    try {
      input = JSON.parse(body || '{}');
    } catch {
      return reply(response, 400, { __type: 'SerializationException', Message: 'Body is not JSON' });
    }
    const operation = OPERATIONS[target];
    if (!operation) {
      return reply(response, 400, {
        __type: 'UnknownOperationException',
        Message: `Not supported: ${target}`,
      });
    }
    operation(input, response);
  }

  const arnOf = (name: string) => `arn:aws:secretsmanager:local:000000000000:secret:${name}`;
  /** A secret is named by its name or its ARN, as AWS takes either. */
  const nameOf = (id: string) => (id.startsWith(arnOf('')) ? id.slice(arnOf('').length) : id);
  const notFound = (response: ServerResponse) =>
    reply(response, 400, {
      __type: 'ResourceNotFoundException',
      Message: "Secrets Manager can't find the specified secret.",
    });
  let versions = 0;
  const newVersion = () => `v${(versions += 1)}`;

  const OPERATIONS: Record<
    string,
    (input: { SecretId?: string; Name?: string; SecretString?: string }, response: ServerResponse) => void
  > = {
    'secretsmanager.GetSecretValue': (input, response) => {
      const name = nameOf(input.SecretId ?? '');
      calls.set(name, (calls.get(name) ?? 0) + 1);
      if (!values.has(name)) return notFound(response);
      const value = values.get(name);
      if (value === undefined) {
        return reply(response, 400, {
          __type: 'ResourceNotFoundException',
          Message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
        });
      }
      reply(response, 200, {
        ARN: arnOf(name),
        Name: name,
        SecretString: value,
        VersionId: `v${calls.get(name)}`,
        VersionStages: ['AWSCURRENT'],
        CreatedDate: Math.floor(Date.now() / 1000),
      });
    },
    // Without SecretString the secret has no version, and reading it fails as above.
    'secretsmanager.CreateSecret': (input, response) => {
      const name = input.Name ?? '';
      if (!/^[A-Za-z0-9/_+=.@-]{1,512}$/.test(name)) {
        return reply(response, 400, {
          __type: 'InvalidParameterException',
          Message:
            'Invalid name. Must be a valid name containing alphanumeric characters, or any of the following: -/_+=.@!',
        });
      }
      if (values.has(name)) {
        return reply(response, 400, {
          __type: 'ResourceExistsException',
          Message: `The operation failed because the secret ${name} already exists.`,
        });
      }
      values.set(name, input.SecretString);
      reply(response, 200, {
        ARN: arnOf(name),
        Name: name,
        ...(input.SecretString !== undefined && { VersionId: newVersion() }),
      });
    },
    'secretsmanager.PutSecretValue': (input, response) => {
      const name = nameOf(input.SecretId ?? '');
      if (!values.has(name)) return notFound(response);
      if (input.SecretString === undefined) {
        return reply(response, 400, {
          __type: 'InvalidRequestException',
          Message: 'You must provide either SecretString or SecretBinary.',
        });
      }
      values.set(name, input.SecretString);
      reply(response, 200, {
        ARN: arnOf(name),
        Name: name,
        VersionId: newVersion(),
        VersionStages: ['AWSCURRENT'],
      });
    },
  };

  const listening = await listen(server, port);
  const total = () => [...calls.values()].reduce((sum, count) => sum + count, 0);
  return {
    ...listening,
    put: (name, value) => values.set(name, value),
    calls: (name) => (name === undefined ? total() : (calls.get(name) ?? 0)),
    valueOf: (name) => values.get(name),
  };
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function reply(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
  response.end(JSON.stringify(body));
}
