import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen, type Listening } from './listen';

export interface LocalSecretsManager extends Listening {
  /** Replaces a secret's value, as a rotation would; undefined leaves the secret with no value. */
  put(name: string, value: string | undefined): void;
  /** GetSecretValue calls served so far, for one secret or for all. */
  calls(name?: string): number;
}

/**
 * The Secrets Manager wire protocol, as much as the plugin uses: the real SDK client posts JSON 1.1 with an
 * `x-amz-target` header, and reads `SecretString` back or a typed error from `__type`.
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
    let input: { SecretId?: string };
    try {
      input = JSON.parse(body || '{}');
    } catch {
      return reply(response, 400, { __type: 'SerializationException', Message: 'Body is not JSON' });
    }
    if (target !== 'secretsmanager.GetSecretValue') {
      return reply(response, 400, {
        __type: 'UnknownOperationException',
        Message: `Not supported: ${target}`,
      });
    }
    const name = input.SecretId ?? '';
    calls.set(name, (calls.get(name) ?? 0) + 1);
    if (!values.has(name)) {
      return reply(response, 400, {
        __type: 'ResourceNotFoundException',
        Message: "Secrets Manager can't find the specified secret.",
      });
    }
    const value = values.get(name);
    if (value === undefined) {
      return reply(response, 400, {
        __type: 'ResourceNotFoundException',
        Message: "Secrets Manager can't find the specified secret value for staging label: AWSCURRENT",
      });
    }
    reply(response, 200, {
      ARN: `arn:aws:secretsmanager:local:000000000000:secret:${name}`,
      Name: name,
      SecretString: value,
      VersionId: `v${calls.get(name)}`,
      VersionStages: ['AWSCURRENT'],
      CreatedDate: Math.floor(Date.now() / 1000),
    });
  }

  const listening = await listen(server, port);
  const total = () => [...calls.values()].reduce((sum, count) => sum + count, 0);
  return {
    ...listening,
    put: (name, value) => values.set(name, value),
    calls: (name) => (name === undefined ? total() : (calls.get(name) ?? 0)),
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
