import type { SecretsManagerClient, SecretsManagerClientConfig } from '@aws-sdk/client-secrets-manager';
import type { StoreId, StoreSecrets, StoreSecretValues } from '../domain/stores';
import { PROCESSING_KEY_FIELDS, WEBHOOK_SECRET_FIELDS } from './fields';
import { secretFields } from './json-secret';

/** A store's secret as JSON, in the field names of the deployment's own secrets. */
export function storeSecretText({ processing, webhookSecrets }: StoreSecretValues): string {
  const [current, previous] = webhookSecrets;
  return JSON.stringify({
    ...(processing && {
      [PROCESSING_KEY_FIELDS.apiKey]: processing.apiKey,
      [PROCESSING_KEY_FIELDS.secretKey]: processing.secretKey,
    }),
    [WEBHOOK_SECRET_FIELDS.current]: current,
    ...(previous !== undefined && { [WEBHOOK_SECRET_FIELDS.previous]: previous }),
  });
}

/** Its values; errors name the field, never a value. */
export function parseStoreSecret(text: string | undefined): StoreSecretValues {
  const field = secretFields("store's secrets", text);
  const apiKey = field(PROCESSING_KEY_FIELDS.apiKey);
  const current = field(WEBHOOK_SECRET_FIELDS.current, 'required');
  const previous = field(WEBHOOK_SECRET_FIELDS.previous);
  return {
    // Keys come in pairs: an API key without its secret key is refused by name.
    ...(apiKey !== undefined && {
      processing: { apiKey, secretKey: field(PROCESSING_KEY_FIELDS.secretKey, 'required') },
    }),
    webhookSecrets: previous === undefined ? [current] : [current, previous],
  };
}

/**
 * A secret per store in Secrets Manager, named `<prefix><store id>` (the stack's prefix ends in `/stores/`). The
 * SDK client is loaded at the first call, as secrets/secrets-manager.ts does.
 */
export class SecretsManagerStoreSecrets implements StoreSecrets {
  private client?: SecretsManagerClient;

  constructor(
    private readonly prefix: string,
    private readonly config: SecretsManagerClientConfig = {},
  ) {}

  /** The secret's name: what IAM scopes by prefix. */
  nameOf(storeId: StoreId): string {
    return `${this.prefix}${storeId}`;
  }

  async create(storeId: StoreId, values: StoreSecretValues): Promise<void> {
    const { CreateSecretCommand } = await import('@aws-sdk/client-secrets-manager');
    try {
      await (
        await this.sdk()
      ).send(
        new CreateSecretCommand({
          Name: this.nameOf(storeId),
          Description: `Merchant Payments plugin: the keys and webhook secret of the store ${storeId}`,
          SecretString: storeSecretText(values),
        }),
      );
    } catch (error) {
      // Left by a create that stopped after it: the store item, written first, says the id is this one's.
      if (error instanceof Error && error.name === 'ResourceExistsException')
        await this.write(storeId, values);
      else throw error;
    }
  }

  async read(storeId: StoreId): Promise<StoreSecretValues | undefined> {
    const { GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    try {
      const { SecretString: text } = await (
        await this.sdk()
      ).send(new GetSecretValueCommand({ SecretId: this.nameOf(storeId) }));
      return text === undefined ? undefined : parseStoreSecret(text);
    } catch (error) {
      if (error instanceof Error && error.name === 'ResourceNotFoundException') return undefined;
      throw error;
    }
  }

  async write(storeId: StoreId, values: StoreSecretValues): Promise<void> {
    const { PutSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    await (
      await this.sdk()
    ).send(
      new PutSecretValueCommand({ SecretId: this.nameOf(storeId), SecretString: storeSecretText(values) }),
    );
  }

  private async sdk(): Promise<SecretsManagerClient> {
    const { SecretsManagerClient } = await import('@aws-sdk/client-secrets-manager');
    return (this.client ??= new SecretsManagerClient(this.config));
  }
}
