// CloudFormation custom resource: puts crypto-random bearer tokens into the tokens secret when they are missing.
// The stack creates that secret with no value. This keeps every other field (a previous token during a rotation)
// and never replaces a token that is already there, so a redeploy does not rotate tokens that storefronts and
// admins already hold. Token values are never logged or returned to CloudFormation.
import { randomBytes } from 'node:crypto';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { TOKEN_FIELDS } from '../../secrets/fields';

const secrets = new SecretsManagerClient({});

/** 256 bits, URL-safe, so it can go in an Authorization header as it is. */
const newToken = () => randomBytes(32).toString('base64url');

/** Adds the missing tokens to the JSON secret; answers which ones it added. */
async function fillTokens(secretId: string, tokenFields: readonly string[]): Promise<string[]> {
  const value: unknown = JSON.parse((await currentValue(secretId)) ?? '{}');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError('The secret is not a JSON object');
  }
  const fields = value as Record<string, unknown>;
  const missing = tokenFields.filter((name) => typeof fields[name] !== 'string' || fields[name] === '');
  if (missing.length === 0) return [];
  for (const name of missing) fields[name] = newToken();
  await secrets.send(new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(fields) }));
  return missing;
}

/** The secret's text; undefined while it has no value (as created). */
async function currentValue(secretId: string): Promise<string | undefined> {
  try {
    return (await secrets.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    // A secret with no version, or none at all: PutSecretValue then adds the first value, or fails.
    if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
    throw error;
  }
}

export async function handler(event: CloudFormationCustomResourceEvent): Promise<void> {
  const secretId = String(event.ResourceProperties.SecretId);
  // The platform token's secret names its one field; the tokens secret, by default, the storefront's and the admin's.
  const given: unknown = event.ResourceProperties.Fields;
  const tokenFields = Array.isArray(given) ? given.map(String) : Object.values(TOKEN_FIELDS);
  // A new SecretId on Update gives a new physical id: CloudFormation then deletes the old resource, a no-op.
  const physicalResourceId = event.RequestType === 'Delete' ? event.PhysicalResourceId : secretId;
  let failure: string | undefined;
  try {
    // Update comes only when the secret itself was replaced, and the new one needs its tokens too.
    const added = event.RequestType === 'Delete' ? [] : await fillTokens(secretId, tokenFields);
    console.log(JSON.stringify({ requestType: event.RequestType, tokensAdded: added }));
  } catch (error) {
    // Only the error's name: a JSON parse error message quotes the secret's text.
    const name = error instanceof Error ? error.name : 'Error';
    console.error(JSON.stringify({ requestType: event.RequestType, error: name }));
    failure = `Could not fill the bearer tokens (${name}); see the function's logs.`;
  }
  await respond(event, physicalResourceId, failure);
}

async function respond(
  event: CloudFormationCustomResourceEvent,
  physicalResourceId: string,
  failure: string | undefined,
): Promise<void> {
  const body = JSON.stringify({
    Status: failure === undefined ? 'SUCCESS' : 'FAILED',
    Reason: failure,
    PhysicalResourceId: physicalResourceId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  });
  // The presigned S3 URL is signed without a content type, so none may be sent.
  const response = await fetch(event.ResponseURL, { method: 'PUT', body, headers: { 'content-type': '' } });
  if (!response.ok) throw new Error(`CloudFormation refused the response: HTTP ${response.status}`);
}
