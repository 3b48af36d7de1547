import type { SecretsManagerClient, SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager';

/**
 * Reads a secret's string from Secrets Manager; undefined while the secret has no (string) value yet, as the stack
 * creates it. The SDK client is loaded and built on the first read, not when the module loads: a bundle keeps
 * it as a lazy module, so a function's init does not pay for it. `config` sets the client's timeouts.
 */
export function secretsManagerLoader(
  secretId: string,
  config: SecretsManagerClientConfig = {},
): () => Promise<string | undefined> {
  let client: SecretsManagerClient | undefined;
  return async () => {
    const { GetSecretValueCommand, SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    client ??= new SecretsManagerClient(config);
    try {
      return (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
    } catch (error) {
      // What GetSecretValue answers for a secret with no version yet.
      if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  };
}
